/**
 * The size measure the pruning code and its simulations compare (the plugin's step decisions and
 * adaptive mode, the replay CLI, the bench): characters of what the model reads, tokens estimated
 * from them. Defined once in the core (lib/size/index.ts) and shared with the budget and blobs stages;
 * re-exported here under the names the pruning code has always used.
 */
export { blockChars, CHARS_PER_TOKEN, contentChars, estimateTokens as tokensOf, IMAGE_CHARS, messageChars, messagesChars } from "../../lib/size/index.ts";
