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
 * After a reload: when the companion still holds a refreshable session (its HttpOnly cookie),
 * gets a fresh access token through it, which restores `client.session`. Never in a pop-up,
 * whose only job is to hand its callback to the opener.
 */
async function restoreSession(client, companionUrl) {
  if (client.session || window.opener) return;
  try {
    const response = await fetch(new URL("/auth/session", companionUrl), { credentials: "include" });
    if (response.ok && (await response.json()).active === true) await client.getAccessToken();
  } catch (error) {
    console.warn("could not restore the session", error);
  }
}

/**
 * Finishes a sign-in when the page is a callback (or restores the companion's session after a
 * reload), then shows the sign-in state, keeps it in step with the client's `sessionchange`
 * event and wires the buttons. Fires `session-change` on document whenever the user signs in or
 * out (in this tab or another).
 */
export async function setupAuth(client, companionUrl) {
  const loading = document.getElementById("auth-loading");
  const signedOut = document.getElementById("signed-out");
  const signedIn = document.getElementById("signed-in");
  const userName = document.getElementById("user-name");
  const signInButton = document.getElementById("sign-in");
  const signOutButton = document.getElementById("sign-out");
  const banner = document.getElementById("auth-message");

  const say = (text, kind = "error") => {
    banner.textContent = text;
    banner.className = `banner ${kind}`;
    banner.dataset.kind = kind;
    banner.hidden = false;
  };
  const clear = () => {
    banner.hidden = true;
    banner.textContent = "";
  };
  const render = (session = client.session) => {
    loading.hidden = true;
    signedOut.hidden = Boolean(session);
    signedIn.hidden = !session;
    userName.textContent = session ? (session.profile?.name || session.profile?.email || session.profile?.sub) : "";
    document.body.dataset.signedIn = session ? "true" : "false";
  };
  // The header follows the package's `sessionchange` event, whatever caused it: a sign-in or
  // sign-out here, a renewed token, a session the companion no longer holds, or another tab of
  // this origin (a sign-out there signs this client out; a sign-in there is picked up through
  // the companion's cookie). The other sections listen to the page's own `session-change` on
  // document, sent when the signed-in user changes (not for a renewed token).
  const onSessionChange = (event) => {
    const { reason, session } = event.detail;
    render(session);
    if (reason === "expired") say("Your session has ended. Sign in again to continue.", "info");
    if (reason !== "refresh") document.dispatchEvent(new CustomEvent("session-change", { detail: session }));
  };

  try {
    await client.handleCallback();
  } catch (error) {
    console.warn("sign-in callback failed", error);
    say(signInErrorText(error));
  }
  await restoreSession(client, companionUrl);
  render();
  client.addEventListener("sessionchange", onSessionChange);

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
        say(signInErrorText(error));
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
      say(`Signing out failed: ${describeError(error)}`);
    } finally {
      signOutButton.disabled = false;
      render();
    }
  });
}
