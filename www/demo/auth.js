// Sign in (pop-up first, redirect when the pop-up is blocked), the signed-in name and Sign out.
import { describeError } from "./format.js";

/** Messages for the sign-in error codes a person can cause. */
const SIGN_IN_MESSAGES = {
  access_denied: "You did not allow the demo to use your account, so you are not signed in.",
  popup_closed: "The sign-in window was closed before signing in finished. Nothing changed: sign in again when you are ready.",
  state_mismatch: "That sign-in answer was already used or did not come from this page. Please sign in again.",
  timeout: "Signing in took too long. Please try again.",
};

/** Text shown for a failed sign-in. */
export function signInErrorText(error) {
  return SIGN_IN_MESSAGES[error?.code] ?? `Signing in failed: ${describeError(error)}`;
}

/**
 * Text shown when the page could not learn whether the user is signed in: a refused sign-in
 * answer, or a companion that cannot be reached (the page then goes on signed out).
 */
export function restoreErrorText(error) {
  return SIGN_IN_MESSAGES[error?.code]
    ?? `Could not check whether you are signed in, so the page goes on signed out: ${describeError(error)} [${error?.code ?? "unknown"}]`;
}

/**
 * Shows the session as the client knows it and keeps it in step with the client's
 * `sessionchange` event, wires the buttons, then restores the session: the client finishes a
 * sign-in when the page is its callback (in the pop-up it hands it to the opener, which closes
 * the pop-up), or else asks the companion once whether it still holds this browser's session.
 * The header shows the loading state until the answer ("unknown"). Resolves once the state is
 * known. Fires `session-change` on document whenever the signed-in user changes (in this tab
 * or another).
 */
export async function setupAuth(client) {
  const auth = document.getElementById("auth");
  const loading = document.getElementById("auth-loading");
  const signedOut = document.getElementById("signed-out");
  const signedIn = document.getElementById("signed-in");
  const userName = document.getElementById("user-name");
  const signInButton = document.getElementById("sign-in");
  const signOutButton = document.getElementById("sign-out");
  const banner = document.getElementById("auth-message");

  const say = (text, kind = "error", code = "") => {
    banner.textContent = text;
    banner.className = `banner ${kind}`;
    banner.dataset.kind = kind;
    banner.dataset.code = code;
    banner.hidden = false;
  };
  const clear = () => {
    banner.hidden = true;
    banner.textContent = "";
  };
  // The header shows `client.sessionState`: "unknown" (the restore has not answered yet),
  // "signedOut" or "signedIn" (with `client.session`).
  const render = () => {
    const state = client.sessionState;
    const session = client.session;
    auth.dataset.session = state;
    loading.hidden = state !== "unknown";
    signedOut.hidden = state !== "signedOut";
    signedIn.hidden = state !== "signedIn";
    userName.textContent = session ? (session.profile?.name || session.profile?.email || session.profile?.sub) : "";
    document.body.dataset.signedIn = state === "signedIn" ? "true" : "false";
  };
  // The header follows the package's `sessionchange` event, whatever caused it: the restore, a
  // sign-in or sign-out here, a renewed token, a session the companion no longer holds, or
  // another tab of this origin (a sign-out there signs this client out; a sign-in there is
  // picked up through the companion's cookie). The other sections listen to the page's own
  // `session-change` on document, sent when the signed-in user changes: not for a renewed
  // token, nor for a restore that found no session (they started signed out).
  client.addEventListener("sessionchange", (event) => {
    const { reason, session } = event.detail;
    render();
    if (reason === "expired") say("Your session has ended. Sign in again to continue.", "info");
    if (reason === "refresh" || (reason === "restore" && !session)) return;
    document.dispatchEvent(new CustomEvent("session-change", { detail: session }));
  });
  render();

  signInButton.addEventListener("click", () => {
    clear();
    signInButton.disabled = true;
    let pending;
    try {
      // Called synchronously inside the click so that the browser lets the pop-up open.
      pending = client.signInWithPopup();
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending
      .catch(async (error) => {
        if (error?.code === "popup_blocked") {
          say("Your browser blocked the sign-in pop-up, so signing in continues in this window…", "info");
          try {
            await client.signInWithRedirect();
            return; // The page is navigating away.
          } catch (redirectError) {
            error = redirectError;
          }
        }
        console.warn("sign-in failed", error);
        say(signInErrorText(error), "error", error?.code);
      })
      .finally(() => {
        signInButton.disabled = false;
      });
  });

  signOutButton.addEventListener("click", async () => {
    clear();
    signOutButton.disabled = true;
    try {
      await client.signOut();
    } catch (error) {
      console.warn("sign-out failed", error);
      say(`Signing out failed: ${describeError(error)}`, "error", error?.code);
    } finally {
      signOutButton.disabled = false;
    }
  });

  try {
    await client.restoreSession();
  } catch (error) {
    // The client is signed out now (`sessionchange` rendered it); the page stays usable.
    console.warn("could not restore the session", error);
    say(restoreErrorText(error), "error", error?.code);
  }
}
