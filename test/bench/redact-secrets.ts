/**
 * True secrets for the coverage comparison (`npm run bench redact`): one kind per line, each in the
 * context it is printed in (an env file, a config, a curl command, a log line, JSON). Generated at
 * run time from a seed, so no whole secret sits in the repository.
 */
import { pseudoRandom } from "./redact-corpus.ts";

/** One planted secret: the text a tool printed and the secret inside it. */
export interface PlantedSecret {
  /** What kind of secret, e.g. "GitHub classic token". */
  kind: string;
  text: string;
  /** The secret itself: found means none of it is left where it was. */
  secret: string;
}

const LOWER = "abcdefghijklmnopqrstuvwxyz";
const UPPER = LOWER.toUpperCase();
const DIGITS = "0123456789";
const ALNUM = UPPER + LOWER + DIGITS;
const B64 = `${ALNUM}+/`;
const HEX = "0123456789abcdef";

/** A 1Password service account token: `ops_` and base64 of its JSON (which ends `fQ==`). */
function onePasswordToken(secretKey: string): string {
  let json = JSON.stringify({
    signInAddress: "my.1password.com",
    userAuth: { method: "SRPg-4096", alg: "PBES2g-HS256", iterations: 650000, salt: secretKey.slice(0, 22) },
    email: "svc@example.org",
    srpX: secretKey,
    muk: { alg: "A256GCM", k: secretKey.repeat(2) },
    secretKey: `A3-${secretKey}`,
  });
  while (json.length % 3 !== 1) json = `${json.slice(0, -1)} }`;
  return `ops_${Buffer.from(json).toString("base64")}`;
}

/** Every kind, `variants` times each with different random characters. */
export function plantedSecrets(variants = 3): PlantedSecret[] {
  const out: PlantedSecret[] = [];
  for (let v = 0; v < variants; v++) {
    const r = (chars: string, n: number, salt = 0) => pseudoRandom(chars, n, 1000 + v * 97 + salt);
    const add = (kind: string, secret: string, text: (s: string) => string) => out.push({ kind, secret, text: text(secret) });
    const pem = (label: string, body: string) => `-----BEGIN ${label}-----\n${body.match(/.{1,64}/g)!.join("\n")}\n-----END ${label}-----\n`;
    // Cloud providers.
    add("AWS access key id", `AKIA${r(UPPER + DIGITS, 16)}`, (s) => `aws_access_key_id = ${s}\n`);
    add("AWS secret access key (credentials file)", r(B64, 40, 1), (s) => `[default]\naws_secret_access_key = ${s}\n`);
    add("AWS secret access key (env)", r(B64, 40, 2), (s) => `export AWS_SECRET_ACCESS_KEY=${s}\n`);
    add("AWS secret access key (Ruby hash)", r(B64, 40, 3), (s) => `  aws_secret_access_key => '${s}',\n`);
    add("GCP API key", `AIza${r(`${ALNUM}_-`, 35, 4)}`, (s) => `const firebaseConfig = { apiKey: "${s}" };\n`);
    add("GCP OAuth access token", `ya29.${r(`${ALNUM}_-`, 120, 5)}`, (s) => `gcloud auth print-access-token\n${s}\n`);
    add("GCP service account private key (JSON)", r(B64, 600, 6), (s) =>
      JSON.stringify({ type: "service_account", private_key_id: r(HEX, 40, 7), private_key: pem("PRIVATE KEY", `MIIEvQ${s}`) }, null, 2),
    );
    add(
      "Azure storage account key",
      `${r(B64, 86, 8)}==`,
      (s) => `DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${s};EndpointSuffix=core.windows.net\n`,
    );
    add("Azure SAS signature", `${r(ALNUM, 43, 9)}%3D`, (s) => `https://acct.blob.core.windows.net/c/f?sv=2022-11-02&se=2026-01-01&sp=r&sig=${s}\n`);
    add("Azure AD client secret", `${r(ALNUM, 3, 10)}8Q~${r(`${ALNUM}_-.~`, 34, 11)}`, (s) => `AZURE_CLIENT_SECRET: ${s}\n`);
    // Code hosts and registries.
    add("GitHub classic token", `ghp_${r(ALNUM, 36, 12)}`, (s) => `git push https://x:${s}@github.com/o/r.git\n`);
    add("GitHub OAuth token", `gho_${r(ALNUM, 36, 13)}`, (s) => `{"access_token":"${s}","token_type":"bearer"}\n`);
    add("GitHub app token", `ghs_${r(ALNUM, 36, 14)}`, (s) => `GITHUB_TOKEN: ${s}\n`);
    add(
      "GitHub app installation token (JWT form)",
      `ghs_${r(DIGITS, 8, 71)}_eyJ${r(ALNUM, 30, 72)}.eyJ${r(ALNUM, 80, 73)}.${r(`${ALNUM}_-`, 43, 74)}`,
      (s) => `x-access-token:${s}\n`,
    );
    add("GitHub fine-grained token", `github_pat_${r(ALNUM, 22, 15)}_${r(ALNUM, 59, 16)}`, (s) => `token=${s}\n`);
    add("GitHub OAuth token in a URL", r(HEX, 40, 17), (s) => `remote: https://${s}:x-oauth-basic@github.com/o/r.git\n`);
    add("GitLab token", `glpat-${r(`${ALNUM}_-`, 20, 18)}`, (s) => `curl --header "PRIVATE-TOKEN: ${s}" https://gitlab.example.org/api/v4/projects\n`);
    add("npm token", `npm_${r(ALNUM, 36, 19)}`, (s) => `//registry.npmjs.org/:_authToken=${s}\n`);
    add(
      "npm legacy token (.npmrc)",
      `${r(HEX, 8, 20)}-${r(HEX, 4, 21)}-${r(HEX, 4, 22)}-${r(HEX, 4, 23)}-${r(HEX, 12, 24)}`,
      (s) => `//registry.npmjs.org/:_authToken=${s}\n`,
    );
    add("Docker access token", `dckr_pat_${r(`${ALNUM}_-`, 27, 25)}`, (s) => `echo ${s} | docker login -u me --password-stdin\n`);
    // Chat, payments, SaaS.
    add("Slack bot token", `xoxb-${r(DIGITS, 12, 26)}-${r(DIGITS, 13, 27)}-${r(ALNUM, 24, 28)}`, (s) => `SLACK_BOT_TOKEN=${s}\n`);
    add(
      "Slack webhook",
      `https://hooks.slack.com/services/T${r(UPPER + DIGITS, 10, 29)}/B${r(UPPER + DIGITS, 10, 30)}/${r(ALNUM, 24, 31)}`,
      (s) => `webhook_url: ${s}\n`,
    );
    add("Stripe live secret key", `sk_live_${r(ALNUM, 24, 32)}`, (s) => `Stripe.api_key = "${s}"\n`);
    add("Stripe restricted key", `rk_live_${r(ALNUM, 24, 33)}`, (s) => `STRIPE_KEY=${s}\n`);
    add("SendGrid API key", `SG.${r(`${ALNUM}_`, 22, 34)}.${r(`${ALNUM}_`, 43, 35)}`, (s) => `sendgrid.setApiKey('${s}');\n`);
    add("Shopify access token", `shpat_${r(HEX, 32, 36)}`, (s) => `X-Shopify-Access-Token: ${s}\n`);
    add("Grafana service account token", `glsa_${r(ALNUM, 32, 37)}_${r(HEX, 8, 38)}`, (s) => `GF_TOKEN=${s}\n`);
    add("Linear API key", `lin_api_${r(ALNUM, 40, 39)}`, (s) => `linear: { apiKey: "${s}" }\n`);
    add("Notion integration token", `ntn_${r(DIGITS, 11, 40)}${r(ALNUM, 35, 41)}`, (s) => `NOTION=${s}\n`);
    add("HashiCorp Vault token", `hvs.${r(`${ALNUM}_-`, 95, 42)}`, (s) => `vault login ${s}\n`);
    add("Vercel token", `vcp_${r(ALNUM, 24, 43)}`, (s) => `vercel --token ${s} deploy\n`);
    add("Databricks token", `dapi${r(HEX, 32, 44)}`, (s) => `host = https://x.cloud.databricks.com\ntoken = ${s}\n`);
    add("Figma token", `figd_${r(`${ALNUM}_-`, 40, 45)}`, (s) => `FIGMA=${s}\n`);
    add("Cloudflare API token", `cfut_${r(ALNUM, 40, 46)}${r(HEX, 8, 47)}`, (s) => `CLOUDFLARE=${s}\n`);
    add("Tailscale auth key", `tskey-auth-${r(ALNUM, 12, 48)}-${r(ALNUM, 30, 49)}`, (s) => `tailscale up --authkey=${s}\n`);
    add("1Password service account token", onePasswordToken(r(ALNUM, 26, 50)), (s) => `OP_SERVICE=${s}\n`);
    // Model providers.
    add("Anthropic API key", `sk-ant-api03-${r(`${ALNUM}_-`, 93, 51)}AA`, (s) => `client = Anthropic(api_key="${s}")\n`);
    add("OpenAI project key", `sk-proj-${r(`${ALNUM}_-`, 74, 52)}T3BlbkFJ${r(`${ALNUM}_-`, 74, 53)}`, (s) => `OPENAI_API_KEY=${s}\n`);
    add("OpenAI legacy key", `sk-${r(ALNUM, 20, 54)}T3BlbkFJ${r(ALNUM, 20, 55)}`, (s) => `openai.api_key = "${s}"\n`);
    add("Groq API key", `gsk_${r(ALNUM, 52, 56)}`, (s) => `GROQ=${s}\n`);
    add("Hugging Face token", `hf_${r(UPPER + LOWER, 34, 57)}`, (s) => `huggingface-cli login --token ${s}\n`);
    // Formats and contexts.
    add("JSON Web Token", `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ${r(ALNUM, 60, 58)}.${r(`${ALNUM}_-`, 43, 59)}`, (s) => `session=${s}; Path=/\n`);
    add("Authorization header (Bearer)", r(ALNUM, 40, 60), (s) => `> Authorization: Bearer ${s}\n`);
    add(
      "Authorization header (Basic)",
      Buffer.from(`admin:${r(ALNUM, 12, 61)}`).toString("base64"),
      (s) => `curl -H 'Authorization: Basic ${s}' https://api.internal\n`,
    );
    add("Bearer token in a log", r(`${ALNUM}._-`, 48, 62), (s) => `2026-01-02T10:00:00Z DEBUG sending request with Bearer ${s} to upstream\n`);
    add("password in a .env", `${r(ALNUM, 14, 63)}!`, (s) => `DB_PASSWORD=${s}\n`);
    add("API key in JSON config", r(ALNUM, 32, 64), (s) => `{"SERVICE_API_KEY": "${s}"}\n`);
    add("Postgres URL password", `${r(ALNUM, 16, 65)}`, (s) => `DATABASE_URL=postgres://app:${s}@db.internal:5432/app\n`);
    add("MongoDB URL password", `${r(ALNUM, 16, 66)}`, (s) => `mongodb+srv://admin:${s}@cluster0.abc.mongodb.net/test\n`);
    add("HTTPS basic auth URL", `${r(ALNUM, 12, 67)}`, (s) => `pip install --index-url https://deploy:${s}@pypi.corp.internal/simple pkg\n`);
    add("RSA private key (PEM)", r(B64, 600, 68), (s) => pem("RSA PRIVATE KEY", `MIIEow${s}`));
    add("OpenSSH private key", r(B64, 400, 69), (s) => pem("OPENSSH PRIVATE KEY", `b3BlbnNzaC1rZXktdjEAAAAA${s}`));
    add("EC private key in JSON", r(B64, 160, 70), (s) => JSON.stringify({ key: pem("EC PRIVATE KEY", `MHcCAQEE${s}`) }));
  }
  return out;
}
