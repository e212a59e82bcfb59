/**
 * The opener's wait for the sign-in pop-up's callback: a `message` on this window from this
 * window's own origin, or a message on the BroadcastChannel `channelName`, either
 * `{type, url}` with `accept(url)` true (the callback of the pending state). Anything else is
 * ignored. Resolves with the URL; rejects with 1 when `signal` fires, 2 after `timeoutMs`,
 * 3 once the pop-up was seen closed `closedPolls` times (polled every `pollMs`).
 */
export function waitForCallback(popup, type, channelName, accept, timeoutMs, pollMs, closedPolls, signal) {
  return new Promise((resolve, reject) => {
    let channel = null;
    let closed = 0;
    const finish = (settle, value) => {
      removeEventListener("message", onMessage);
      if (channel) channel.close();
      clearInterval(poll);
      clearTimeout(timer);
      if (signal) signal.removeEventListener("abort", onAbort);
      settle(value);
    };
    const take = (data) => {
      if (data && typeof data === "object" && data.type === type
          && typeof data.url === "string" && accept(data.url)) {
        finish(resolve, data.url);
      }
    };
    const onMessage = (event) => {
      if (event.origin === location.origin) take(event.data);
    };
    const onAbort = () => finish(reject, 1);
    addEventListener("message", onMessage);
    try {
      channel = new BroadcastChannel(channelName);
      channel.onmessage = (event) => take(event.data);
    } catch (_) {
      channel = null;
    }
    const poll = setInterval(() => {
      if (popup.closed && ++closed >= closedPolls) finish(reject, 3);
    }, pollMs);
    const timer = setTimeout(() => finish(reject, 2), timeoutMs);
    if (signal) signal.addEventListener("abort", onAbort);
  });
}
