/**
 * The search for the largest answer that fits: the largest value of one numeric argument (a result
 * count such as `limit`) whose answer is within the budget. A first guess scales the count by how
 * far over the budget the answer is (answers grow about linearly with their result count), then
 * bisection between the largest count that fitted and the smallest that did not. At most
 * {@link MAX_FIT_REQUESTS} requests.
 */

/** Most requests one fit search issues. */
export const MAX_FIT_REQUESTS = 4;

/** What a request with `count` answered: its size in bytes and whether it fits. */
export interface FitProbe {
  bytes: number;
  fits: boolean;
}

/**
 * Finds the largest count below `over` (whose answer, `overBytes` large, does not fit) that fits
 * `targetBytes`, asking `probe` (which returns undefined when the request failed: the search stops).
 * Returns the count that fitted, or undefined when none did.
 */
export async function largestFittingCount(
  over: number,
  overBytes: number,
  targetBytes: number,
  probe: (count: number) => Promise<FitProbe | undefined>,
): Promise<number | undefined> {
  let low = 0; // the largest count known to fit (0: none yet)
  let high = over; // the smallest count known not to fit
  let highBytes = overBytes;
  for (let request = 0; request < MAX_FIT_REQUESTS && high - low > 1; request++) {
    const scaled = Math.floor((high * targetBytes) / Math.max(highBytes, 1));
    const guess = low === 0 ? Math.min(high - 1, Math.max(1, scaled)) : Math.floor((low + high) / 2);
    const answer = await probe(guess);
    if (!answer) break;
    if (answer.fits) low = guess;
    else {
      high = guess;
      highBytes = answer.bytes;
    }
  }
  return low > 0 ? low : undefined;
}
