/**
 * The opener's wait for the sign-in pop-up's callback: a `message` on this window from this
 * window's own origin, or a message on the BroadcastChannel `channelName`, either
 * `{type, url}` with `accept(url)` true (the callback of the pending state). Anything else is
 * ignored. Resolves with the callback's URL, or with why the wait ended without one (never a
 * URL, which has a scheme): `"aborted"` when `signal` or `dropped` fires, `"timeout"` after
 * `timeoutMs`, or `"closed"` once the pop-up was seen closed `closedPolls` times (polled every
 * `pollMs`).
 *
 * Why JavaScript: five listeners and timers at once (window messages, a BroadcastChannel,
 * the close poll, the timeout and the abort) that settle one promise; in Rust each would be
 * its own Closure with its own glue, several times the size of this function.
 */
export function waitForCallback(popup, type, channelName, accept, timeoutMs, pollMs, closedPolls, signal, dropped) {
  return new Promise((resolve) => {
    let channel = null;
    let closed = 0;
    const finish = (outcome) => {
      removeEventListener("message", onMessage);
      if (channel) channel.close();
      clearInterval(poll);
      clearTimeout(timer);
      if (signal) signal.removeEventListener("abort", onAbort);
      dropped.removeEventListener("abort", onAbort);
      resolve(outcome);
    };
    const take = (data) => {
      if (data && typeof data === "object" && data.type === type
          && typeof data.url === "string" && accept(data.url)) {
        finish(data.url);
      }
    };
    const onMessage = (event) => {
      if (event.origin === location.origin) take(event.data);
    };
    const onAbort = () => finish("aborted");
    addEventListener("message", onMessage);
    try {
      channel = new BroadcastChannel(channelName);
      channel.onmessage = (event) => take(event.data);
    } catch (_) {
      channel = null;
    }
    const poll = setInterval(() => {
      if (popup.closed && ++closed >= closedPolls) finish("closed");
    }, pollMs);
    const timer = setTimeout(() => finish("timeout"), timeoutMs);
    if (signal) signal.addEventListener("abort", onAbort);
    dropped.addEventListener("abort", onAbort);
  });
}
