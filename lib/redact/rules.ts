/**
 * The built-in rules: known secret shapes. Every rule is anchored on literal text (a prefix, a
 * header or variable name) and uses only bounded quantifiers, and may start only where the character
 * before is not part of the same run (a lookbehind), so each rule runs in linear time; a value that
 * may run on for thousands of characters is checked by code that remembers the runs it scanned
 * (`value`, value-scan.ts). `npm run bench redact` holds every rule to an absolute CPU cost per MB on
 * its own worst input (test/bench/redact-corpus.ts). A rule either hides its whole match, or, with a
 * `(?<k>...)` group (or a `value`), keeps the leading part (the header or variable name) and hides the
 * rest. Sources use no other capturing groups.
 *
 * Measured for what they find and their false positives against secretlint's recommended preset on
 * planted secrets, real code and logs (test/bench/redact-coverage.bench.ts; docs/security.md lists the
 * figures and which patterns were ported from it).
 */
import { shapeSource, type TokenShape } from "./shape.ts";
import { allExcept, type RunMemo, type ValueRule } from "./value-scan.ts";

/** A compiled-source rule. */
export interface RedactionRule {
  /** Shown in `[redacted:<name>]`; config's `disabledRules` names it. */
  readonly name: string;
  /** Regular expression source, no flags; may contain one `(?<k>...)` group: the part that is kept. */
  readonly source: string;
  /** One line for docs: what it finds. */
  readonly finds: string;
  /** Literal texts one of which every match contains; a text with none of them skips the rule. */
  readonly anchors?: readonly string[];
  /**
   * A value checked by code instead of the expression: `source` then finds only the key (kept), and
   * the value after it is scanned without rescanning (value-scan.ts). For values that may run on.
   */
  readonly value?: ValueRule;
}

/** Case-insensitive literal without the `i` flag (which would apply to every rule in the combined expression). */
function ci(word: string): string {
  return word.replace(/[a-z]/gi, (c) => `[${c.toLowerCase()}${c.toUpperCase()}]`);
}

const shape = (s: TokenShape, finds: string): RedactionRule => ({ name: s.name, source: shapeSource(s), finds, anchors: [s.prefix] });
const alnum = "A-Za-z0-9";
/** Control characters: never part of a value (an escape character before a colour code is not a secret). */
const CONTROLS = "\\u0000-\\u001f\\u007f";
/** What ends a header or assignment value besides space and control characters: quotes and the delimiters of templates and lists. */
const VALUE_DELIMITERS = "\"'`$<>{}()[]\\,;";
/** Characters of a header or assignment value: anything but space, control characters, quotes and the delimiters of templates and lists. */
const VALUE = `[^\\s${CONTROLS}"'\`$<>{}()\\[\\]\\\\,;]`;
/**
 * Placeholders in documentation, judged on the WHOLE value (each alternative must reach the value's
 * end): `your-api-key`, `YOUR_TOKEN_HERE`, `my-token`, `test`, `dummy-token`, `example_secret` (a
 * placeholder word and letters, no digit), `xxxx-xxxx`, an upper-case name (`SOME_TOKEN`), a flag
 * (`true`, `no`, `null`) or a number (`1`, `3000`, `3.5`, `1.2.3`); and, by their first characters, `<token>`
 * and an elided `...value`. A realistic value that merely starts like one (`2024!Secure#Pass`,
 * `no-way-J0se!`, `Testing-2024-Prod!`, `test_9f8e7d…`) is not a placeholder. Bounded: at most ~200
 * characters are looked at per key.
 */
const PLACEHOLDER_WORD = [...["your", "test", "fake", "dummy", "example", "sample", "placeholder", "changeme", "redacted"].map(ci), `${ci("my")}[-_]`].join(
  "|",
);
const PLACEHOLDER_FLAG = "true|false|yes|no|on|off|null|none|undefined|nil|True|False|TRUE|FALSE|Yes|No|YES|NO|None|NONE|Null|NULL";
/** A placeholder value whose characters are `valueClass` (a regular expression class), at the value's start: see {@link PLACEHOLDER_WORD}. */
function placeholderValue(valueClass: string): string {
  const whole = [
    // a placeholder word, then letters and separators only, to the value's end
    `(?:${PLACEHOLDER_WORD})[A-Za-z]{0,24}(?:[-_.][A-Za-z]{1,24}){0,8}`,
    "[xX*]{3}[xX*._-]{0,61}",
    "[A-Z][A-Z_]{2,63}",
    `(?:${PLACEHOLDER_FLAG})`,
    // a number, a decimal or a version (`3000`, `3.5`, `1.2.3`)
    "[0-9]{1,8}(?:\\.[0-9]{1,8}){0,3}",
  ];
  return `(?:(?:${whole.join("|")})(?!${valueClass})|\\.\\.\\.|…|<)`;
}
/** Refuses a placeholder value (see {@link placeholderValue}). */
const notAPlaceholder = (valueClass: string): string => `(?!${placeholderValue(valueClass)})`;
/** The value classes of the rules below: what a `.npmrc` credential, a Bearer token and a URL's password are made of. */
const NPMRC_VALUE = `[^\\s${CONTROLS}"'\`$]`;
const BEARER_VALUE = "[A-Za-z0-9._~+/=-]";
const URL_PASSWORD = `[^\\s${CONTROLS}/@'"\`<>{}]`;
/** A host that is example.com, .org or .net, or a subdomain of one (documentation's own hosts, RFC 2606), and nothing longer. */
const EXAMPLE_HOST = "(?:[A-Za-z0-9-]{1,63}\\.){0,8}example\\.(?:com|org|net)(?![A-Za-z0-9-]|\\.[A-Za-z0-9])";
/** An assignment's value that is an elided example (`sk-...`); scans at most 128 characters. */
const NOT_ELIDED = `(?!${VALUE}{0,128}(?:\\.\\.\\.|…))`;
/** Authentication schemes in front of a header's credential. */
const SCHEME = "(?:Bearer|Basic|Token|Bot|Digest|bearer|basic|token)(?:[ \\t]{1,4}|%20)";

const VALUE_CHAR = allExcept(VALUE_DELIMITERS, true);
/** What may not start a header's credential: a template or variable, a second scheme, a placeholder. */
const NOT_A_CREDENTIAL_START = new RegExp(`[$<{%*\\[]|${SCHEME}|${placeholderValue(VALUE)}`, "y");
/** Longest credential hidden as one (characters). */
const MAX_CREDENTIAL = 4096;

/**
 * A header value that is a credential, not code: 8 to 4,096 value characters that hold a digit
 * within the first 4,096 (tokens do; the first 4,096 are hidden), or that end the line or a quoted
 * string (`Basic dXNlcjpwYXNz`). `Authorization: makeHeader(key)` and `Authorization = token ?? null`
 * in source are left alone. Returns the end of the hidden value or -1.
 */
function credentialValue(text: string, start: number, memo: RunMemo): number {
  NOT_A_CREDENTIAL_START.lastIndex = start;
  if (NOT_A_CREDENTIAL_START.test(text)) return -1;
  const runEnd = memo.runEndFrom(start);
  const length = runEnd - start;
  if (length < 8) return -1;
  const end = start + Math.min(length, MAX_CREDENTIAL);
  if (memo.digitFromUntil(start, runEnd) < end) return end;
  if (length > MAX_CREDENTIAL) return -1;
  const next = runEnd < text.length ? text[runEnd] : "";
  return next === "" || next === '"' || next === "'" || next === "`" || next === "\r" || next === "\n" ? runEnd : -1;
}

/** The built-in rules, in priority order (an earlier rule wins where two match at the same place). */
export const BUILTIN_RULES: readonly RedactionRule[] = Object.freeze([
  // Cloud providers.
  {
    name: "aws-access-key",
    source: `(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])(?<!EXAMPLE)`,
    finds: "AWS access key ids (AKIA…, ASIA…)",
    anchors: ["AKIA", "ASIA", "ABIA", "ACCA"],
  },
  {
    name: "aws-secret-key",
    source: `(?<k>(?<![A-Za-z0-9_])(?:${ci("aws")}_?)?${ci("secret")}_?${ci("access")}_?${ci("key")}["']?[ \\t]{0,4}(?:=>|[:=])[ \\t]{0,4}["']?)[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])`,
    finds: "AWS secret access keys after aws_secret_access_key = / : / => (40 characters)",
    anchors: ["secret", "SECRET", "Secret"],
  },
  shape({ name: "gcp-api-key", prefix: "AIza", chars: `${alnum}_-`, minLength: 35, maxLength: 35 }, "Google API keys (AIza + 35)"),
  shape({ name: "gcp-oauth-token", prefix: "ya29.", chars: `${alnum}_.-`, minLength: 30, maxLength: 2048 }, "Google OAuth access tokens (ya29.…)"),
  {
    name: "azure-storage-key",
    // Not after a character of its own value: `AccountKey=AccountKey=…` starts one attempt, not one per key.
    source: `(?<k>(?<![A-Za-z0-9+/=%])(?:AccountKey|SharedAccessKey|SharedAccessSignature)=)[A-Za-z0-9+/=%]{20,1024}(?![A-Za-z0-9+/=%])`,
    finds: "Azure connection-string keys (AccountKey=, SharedAccessKey=)",
    anchors: ["AccountKey=", "SharedAccess"],
  },
  {
    name: "azure-sas-signature",
    source: `(?<k>[?&]sig=)[A-Za-z0-9%+/=]{30,512}(?![A-Za-z0-9%+/=])`,
    finds: "Azure SAS URL signatures (?sig=…, &sig=…)",
    anchors: ["sig="],
  },
  {
    name: "azure-client-secret",
    source: `(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])`,
    finds: "Azure AD client secrets (…8Q~…, 40 characters)",
    anchors: ["Q~"],
  },
  // Code hosts and package registries.
  shape(
    { name: "github-token", prefix: "ghp_", chars: alnum, minLength: 36, maxLength: 251 },
    "GitHub personal, OAuth, app and refresh tokens (ghp_, gho_, ghu_, ghs_, ghr_)",
  ),
  shape({ name: "github-token", prefix: "gho_", chars: alnum, minLength: 36, maxLength: 251 }, ""),
  shape({ name: "github-token", prefix: "ghu_", chars: alnum, minLength: 36, maxLength: 251 }, ""),
  shape({ name: "github-token", prefix: "ghs_", chars: alnum, minLength: 36, maxLength: 251 }, ""),
  shape({ name: "github-token", prefix: "ghr_", chars: alnum, minLength: 36, maxLength: 251 }, ""),
  shape({ name: "github-token", prefix: "github_pat_", chars: `${alnum}_`, minLength: 50, maxLength: 251 }, "GitHub fine-grained tokens (github_pat_…)"),
  {
    name: "github-token",
    // An app installation token in its JWT form (ghs_<id>_<header>.<payload>.<signature>, as in
    // secretlint's preset). Not after a character of its own run, so one attempt per run.
    source: `(?<![A-Za-z0-9_.-])ghs_[0-9]{1,20}_[A-Za-z0-9_-]{1,1000}\\.[A-Za-z0-9_-]{1,10000}\\.[A-Za-z0-9_-]{1,1000}(?![A-Za-z0-9_.-])`,
    finds: "",
    anchors: ["ghs_"],
  },
  shape(
    { name: "gitlab-token", prefix: "glpat-", chars: `${alnum}_-`, minLength: 20, maxLength: 255 },
    "GitLab personal, deploy, runner and OAuth tokens (glpat-, gldt-, glrt-, glptt-, gloas-)",
  ),
  shape({ name: "gitlab-token", prefix: "gldt-", chars: `${alnum}_-`, minLength: 20, maxLength: 255 }, ""),
  shape({ name: "gitlab-token", prefix: "glrt-", chars: `${alnum}_-`, minLength: 20, maxLength: 255 }, ""),
  shape({ name: "gitlab-token", prefix: "glptt-", chars: `${alnum}_-`, minLength: 20, maxLength: 255 }, ""),
  shape({ name: "gitlab-token", prefix: "gloas-", chars: `${alnum}_-`, minLength: 20, maxLength: 255 }, ""),
  shape({ name: "npm-token", prefix: "npm_", chars: alnum, minLength: 36, maxLength: 255 }, "npm access tokens (npm_ + 36)"),
  {
    name: "npmrc-auth",
    // .npmrc credentials: a legacy token (a UUID), `_auth` (base64 user:password) or `_password`.
    source: `(?<k>(?<![A-Za-z0-9_])_(?:authToken|auth|password)[ \\t]{0,4}=[ \\t]{0,4}["']?)(?![$<{%*\\[])${notAPlaceholder(NPMRC_VALUE)}${NPMRC_VALUE}{8,1024}`,
    finds: ".npmrc credentials (_authToken=, _auth=, _password=)",
    anchors: ["_authToken", "_auth", "_password"],
  },
  shape({ name: "docker-token", prefix: "dckr_pat_", chars: `${alnum}_-`, minLength: 27, maxLength: 27 }, "Docker Hub access tokens (dckr_pat_ + 27)"),
  // Chat and payments.
  {
    name: "slack-token",
    source: `(?<![A-Za-z0-9-])xox[abposer]-[0-9A-Za-z]{1,64}-[0-9A-Za-z-]{8,255}(?![0-9A-Za-z-])`,
    finds: "Slack bot, user, app and refresh tokens (xoxb-, xoxp-, xoxa-, xoxe-…)",
    anchors: ["xox"],
  },
  shape(
    { name: "slack-webhook", prefix: "https://hooks.slack.com/services/", chars: `${alnum}/`, minLength: 20, maxLength: 128 },
    "Slack incoming webhook URLs",
  ),
  shape({ name: "stripe-key", prefix: "sk_live_", chars: alnum, minLength: 20, maxLength: 255 }, "Stripe live secret and restricted keys (sk_live_, rk_live_)"),
  shape({ name: "stripe-key", prefix: "rk_live_", chars: alnum, minLength: 20, maxLength: 255 }, ""),
  // SaaS tokens with a vendor prefix (the patterns of secretlint's recommended preset, as shapes).
  shape({ name: "sendgrid-key", prefix: "SG.", chars: `${alnum}_.-`, minLength: 60, maxLength: 128 }, "SendGrid API keys (SG.… + 66)"),
  shape({ name: "shopify-token", prefix: "shpat_", chars: alnum, minLength: 32, maxLength: 64 }, "Shopify access tokens (shpat_, shpca_, shppa_, shpss_)"),
  shape({ name: "shopify-token", prefix: "shpca_", chars: alnum, minLength: 32, maxLength: 64 }, ""),
  shape({ name: "shopify-token", prefix: "shppa_", chars: alnum, minLength: 32, maxLength: 64 }, ""),
  shape({ name: "shopify-token", prefix: "shpss_", chars: alnum, minLength: 32, maxLength: 64 }, ""),
  shape({ name: "grafana-token", prefix: "glsa_", chars: `${alnum}_`, minLength: 41, maxLength: 41 }, "Grafana service account and cloud tokens (glsa_, glc_)"),
  // Base64 bodies without their `=` padding in the set: `NAME=glc_…` must not read as one run.
  shape({ name: "grafana-token", prefix: "glc_", chars: `${alnum}+/`, minLength: 32, maxLength: 400 }, ""),
  shape({ name: "linear-key", prefix: "lin_api_", chars: `${alnum}_`, minLength: 32, maxLength: 128 }, "Linear API keys (lin_api_)"),
  shape({ name: "notion-token", prefix: "ntn_", chars: alnum, minLength: 46, maxLength: 46 }, "Notion integration tokens (ntn_ + 46)"),
  shape(
    { name: "vault-token", prefix: "hvs.", chars: `${alnum}_-`, minLength: 90, maxLength: 120 },
    "HashiCorp Vault service, batch and recovery tokens (hvs., hvb., hvr.)",
  ),
  shape({ name: "vault-token", prefix: "hvb.", chars: `${alnum}_-`, minLength: 138, maxLength: 300 }, ""),
  shape({ name: "vault-token", prefix: "hvr.", chars: `${alnum}_-`, minLength: 90, maxLength: 120 }, ""),
  shape({ name: "vercel-token", prefix: "vcp_", chars: alnum, minLength: 20, maxLength: 60 }, "Vercel tokens (vcp_, vci_, vca_, vcr_, vck_)"),
  shape({ name: "vercel-token", prefix: "vci_", chars: alnum, minLength: 20, maxLength: 60 }, ""),
  shape({ name: "vercel-token", prefix: "vca_", chars: alnum, minLength: 20, maxLength: 60 }, ""),
  shape({ name: "vercel-token", prefix: "vcr_", chars: alnum, minLength: 20, maxLength: 60 }, ""),
  shape({ name: "vercel-token", prefix: "vck_", chars: alnum, minLength: 20, maxLength: 60 }, ""),
  shape({ name: "databricks-token", prefix: "dapi", chars: "a-f0-9", minLength: 32, maxLength: 32 }, "Databricks tokens (dapi + 32 hex)"),
  shape({ name: "figma-token", prefix: "figd_", chars: `${alnum}_-`, minLength: 40, maxLength: 200 }, "Figma tokens (figd_)"),
  shape({ name: "cloudflare-token", prefix: "cfut_", chars: alnum, minLength: 48, maxLength: 48 }, "Cloudflare API tokens (cfut_, cfat_, cfk_ + 48)"),
  shape({ name: "cloudflare-token", prefix: "cfat_", chars: alnum, minLength: 48, maxLength: 48 }, ""),
  shape({ name: "cloudflare-token", prefix: "cfk_", chars: alnum, minLength: 48, maxLength: 48 }, ""),
  shape({ name: "tailscale-key", prefix: "tskey-", chars: `${alnum}_-`, minLength: 28, maxLength: 130 }, "Tailscale keys (tskey-…)"),
  shape({ name: "onepassword-token", prefix: "ops_ey", chars: `${alnum}+/`, minLength: 100, maxLength: 1280 }, "1Password service account tokens (ops_ey…)"),
  // Model providers: Anthropic before OpenAI, both start with sk-.
  shape({ name: "anthropic-key", prefix: "sk-ant-", chars: `${alnum}_-`, minLength: 32, maxLength: 255 }, "Anthropic API keys (sk-ant-…)"),
  shape({ name: "groq-key", prefix: "gsk_", chars: alnum, minLength: 52, maxLength: 52 }, "Groq API keys (gsk_ + 52)"),
  shape({ name: "huggingface-token", prefix: "hf_", chars: "A-Za-z", minLength: 34, maxLength: 34 }, "Hugging Face tokens (hf_ + 34 letters)"),
  {
    name: "openai-key",
    // sk- then at least 20 characters, one of them a digit: "sk-some-long-css-class-name" is not a key.
    source: `(?<![A-Za-z0-9_-])sk-(?=[A-Za-z0-9_-]{0,254}[0-9])[A-Za-z0-9_-]{20,255}(?![A-Za-z0-9_-])`,
    finds: "OpenAI-style keys (sk-…, sk-proj-…; at least 20 characters with a digit)",
    anchors: ["sk-"],
  },
  // Formats.
  {
    name: "jwt",
    source: `(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{5,4096}\\.eyJ[A-Za-z0-9_-]{5,8192}\\.[A-Za-z0-9_-]{0,4096}(?![A-Za-z0-9_-])`,
    finds: "JSON Web Tokens (eyJ….eyJ….…)",
    anchors: ["eyJ"],
  },
  {
    name: "authorization-header",
    // The key only: the value is checked by code (credentialValue), which never rescans a run.
    source: `(?<![A-Za-z0-9_-])(?:${ci("proxy-")})?${ci("authorization")}["']?[ \\t]{0,4}[:=][ \\t]{0,4}["']?(?:${SCHEME})?`,
    value: { chars: VALUE_CHAR, match: credentialValue },
    finds: "Authorization / Proxy-Authorization header values (Bearer, Basic, Token)",
    anchors: ["uthorization", "UTHORIZATION"],
  },
  {
    name: "bearer-token",
    source: `(?<k>(?<![A-Za-z0-9_-])Bearer[ \\t]{1,4})${notAPlaceholder(BEARER_VALUE)}${BEARER_VALUE}{20,4096}(?![A-Za-z0-9._~+/=-])`,
    finds: "Bearer tokens outside a header line (Bearer + 20 or more token characters)",
    anchors: ["Bearer"],
  },
  {
    name: "secret-assignment",
    // NAME=value (shell, .env, docker) or "NAME": "value" (JSON); no spaces around = so
    // `const API_KEY = "name"` in source is not taken for a secret, and no variable references.
    source:
      `(?<k>(?<![A-Za-z0-9_.$-])(?:[A-Z][A-Z0-9_]{0,62})?(?:_TOKEN|_KEY|_SECRET|PASSWORD|_PASSWD|_PWD|_PASS|_CREDENTIALS|_CREDENTIAL|_APIKEY|_AUTH)` +
      `(?:=["']?|["'][ \\t]{0,2}:[ \\t]{0,2}["']))(?![$<{%*\\[=(/~.])${notAPlaceholder(VALUE)}${NOT_ELIDED}${VALUE}{1,1024}`,
    finds: 'Values of *_TOKEN, *_KEY, *_SECRET, *PASSWORD, *_CREDENTIALS assignments (NAME=value, "NAME": "value")',
    anchors: ["_TOKEN", "_KEY", "_SECRET", "PASSWORD", "_PASSWD", "_PWD", "_PASS", "_CREDENTIAL", "_APIKEY", "_AUTH"],
  },
  {
    name: "url-password",
    // A token as the user of a URL whose password is GitHub's fixed `x-oauth-basic`.
    source: `(?<k>://)[A-Za-z0-9_-]{20,256}(?=:x-oauth-basic@)`,
    finds: "",
    anchors: [":x-oauth-basic@"],
  },
  {
    name: "url-password",
    source: `(?<k>://(?<=(?<![A-Za-z0-9+.-])[a-zA-Z][a-zA-Z0-9+.-]{0,20}://)[^\\s:/@'"\`<>{}$]{1,256}:)(?![$<{%*\\[])(?!(?:password|passwd|pass|pwd|secret|x{1,16}|\\*{1,16})@)${notAPlaceholder(URL_PASSWORD)}${URL_PASSWORD}{1,256}(?=@(?!${EXAMPLE_HOST}))`,
    finds: "Passwords in URLs (scheme://user:password@host; the token in https://TOKEN:x-oauth-basic@)",
    anchors: ["://"],
  },
]);

/** Every built-in rule name, once. */
export const BUILTIN_RULE_NAMES: readonly string[] = Object.freeze([...new Set([...BUILTIN_RULES.map((r) => r.name), "private-key"])]);
