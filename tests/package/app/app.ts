// A strict TypeScript app against the packed `fundraising-client`: every method and every
// option of FundraisingClient, the `sessionchange` event, and `onStatus` with parameters whose
// types are inferred. It is only type-checked (`tsc --noEmit`, skipLibCheck off), never run.
// `@ts-expect-error` lines must stay errors: they show the declarations are not `any`, and
// that a call's required members are required.
import init, { FundraisingClient, FundraisingError, initSync } from "fundraising-client";
import type {
  CallOptions,
  Campaign,
  ClientOptions,
  Donation,
  DonationStatus,
  Event as FundraisingEvent,
  EventCreated,
  EventPages,
  EventType,
  FundraisingErrorCode,
  FundraisingPageSummary,
  PageOptions,
  PagesOptions,
  Profile,
  Session,
  SessionChange,
  SessionChangeReason,
  SessionState,
  SignInOptions,
  WaitOptions,
} from "fundraising-client";

declare const wasmBytes: ArrayBuffer;
declare function show(text: string): void;

export async function load(): Promise<void> {
  await init();
  await init({ module_or_path: new URL("https://cdn.example/fundraising_client_bg.wasm") });
  await init({ module_or_path: fetch("/pkg/fundraising_client_bg.wasm") });
  initSync({ module: wasmBytes });
}

export function makeClient(): FundraisingClient {
  const options: ClientOptions = {
    appId: "demo-app",
    baseUrl: "http://127.0.0.1:8081",
    authUrl: "http://127.0.0.1:8082",
    redirectUri: "http://127.0.0.1:8080/",
    companionUrl: "http://127.0.0.1:8080",
    scopes: ["fundraise", "offline_access"],
    timeoutMs: 10_000,
    bff: false,
  };
  // @ts-expect-error appId is required
  new FundraisingClient({ baseUrl: "http://127.0.0.1:8081" });
  return new FundraisingClient(options);
}

export async function signIn(client: FundraisingClient, button: HTMLButtonElement): Promise<void> {
  const controller = new AbortController();
  const signInOptions: SignInOptions = {
    scopes: ["fundraise", "email"],
    prompt: "login",
    loginHint: "demo@example.org",
    returnPath: "/after-sign-in",
    timeoutMs: 300_000,
    signal: controller.signal,
  };
  button.onclick = async () => {
    try {
      const session: Session = await client.signInWithPopup(signInOptions);
      const profile: Profile = session.profile;
      show(`Hello ${profile.name ?? profile.sub}, until ${session.expiresAt.toISOString()}`);
    } catch (e) {
      if (e instanceof FundraisingError) {
        const code: FundraisingErrorCode = e.code;
        const status: number | null = e.status;
        const message: string = e.message;
        if (code === "popup_blocked") {
          const done: void = await client.signInWithRedirect(signInOptions);
          return done;
        }
        show(`${code} ${status ?? "-"} ${message}`);
      }
      throw e;
    }
  };
  await client.signInWithPopup();
  await client.signInWithRedirect();
  const restored: Session | null = await client.restoreSession();
  const state: SessionState = client.sessionState;
  // @ts-expect-error the state is one of three names
  const unknownState: SessionState = "signedin";
  show(`${restored?.profile.sub} ${state} ${unknownState}`);
  const back: Session | null = await client.handleCallback();
  const fromUrl: Session | null = await client.handleCallback("http://127.0.0.1:8080/?code=c&state=s");
  const now: Session | null = client.session;
  const scope: string | null = now?.scope ?? back?.scope ?? fromUrl?.scope ?? null;
  const token: string | null = await client.getAccessToken();
  const tokenWithSignal: string | null = await client.getAccessToken({ signal: controller.signal });
  show(`${scope} ${token} ${tokenWithSignal}`);
  const out: void = await client.signOut();
  return out;
}

export function listen(client: FundraisingClient): () => void {
  const listener = (event: CustomEvent<SessionChange>) => {
    const reason: SessionChangeReason = event.detail.reason;
    const state: SessionState = event.detail.state;
    const session: Session | null = event.detail.session;
    show(`${reason} (${state}): ${session?.profile.name ?? "signed out"}`);
  };
  client.addEventListener("sessionchange", listener);
  // @ts-expect-error the client fires only sessionchange
  client.addEventListener("click", listener);
  return () => client.removeEventListener("sessionchange", listener);
}

export async function resources(client: FundraisingClient): Promise<number> {
  const controller = new AbortController();
  const call: CallOptions = { signal: controller.signal };

  const campaign: Campaign = await client.getCampaign("demo-campaign", call);
  const raised: number = campaign.donationSummary.totalAmount;
  const start: Date | null = campaign.startDate;
  await client.getCampaign("demo-campaign");

  const donation: Donation = await client.getDonationByReference("demo-ref-1", call);
  const status: DonationStatus = donation.status;
  await client.getDonationByReference("demo-ref-1");

  const type: EventType = "Running_Marathons";
  const event: FundraisingEvent = {
    name: "City Marathon",
    description: "42 km",
    eventType: type,
    startDate: new Date("2030-01-01T09:00:00Z"),
    completionDate: new Date("2030-01-01T17:00:00Z"),
    expiryDate: new Date("2030-02-01T00:00:00Z"),
    location: "London",
    charityId: 7,
  };
  const created: EventCreated = await client.createEvent(event, call);
  const uri: string | undefined = created.next?.uri;
  await client.createEvent({ name: "Swim", eventType: "Swimming" });
  // @ts-expect-error an event needs at least its name and type
  await client.createEvent({ description: "no name, no type" });

  const pageOptions: PageOptions = { page: 2, pageSize: 50, signal: controller.signal };
  const pages: EventPages = await client.getEventPages(1001, pageOptions);
  const first: FundraisingPageSummary | undefined = pages.fundraisingPages[0];
  await client.getEventPages(1001);
  // @ts-expect-error the event id is a number
  await client.getEventPages("1001");

  const pagesOptions: PagesOptions = { pageSize: 100, signal: controller.signal };
  let count = 0;
  for await (const page of client.eventPages(1001, pagesOptions)) {
    const title: string = page.pageTitle;
    count += title.length > 0 ? 1 : 0;
  }
  for await (const page of client.eventPages(1001)) {
    const summary: FundraisingPageSummary = page;
    count += summary.pageId > 0 ? 1 : 0;
  }
  show(`${raised} ${start?.getTime()} ${status} ${uri} ${first?.pageId}`);
  return count;
}

export async function donorReturns(client: FundraisingClient, reference: string): Promise<Donation> {
  const controller = new AbortController();
  const wait: WaitOptions = {
    timeoutMs: 600_000,
    signal: controller.signal,
    // The parameters carry no annotations: their types come from the declarations.
    onStatus: (status, donation) => {
      const known: DonationStatus = status;
      const amount: string = donation.amount;
      // @ts-expect-error a status is text, not a number (so it is not `any`)
      const wrong: number = status;
      // @ts-expect-error a donation has no such member (so it is not `any`)
      donation.noSuchMember;
      show(`${known} ${amount} ${wrong}`);
    },
  };
  await client.waitForDonation(reference);
  await client.waitForDonation(reference, {
    onStatus: (status, donation) => show(`${status.toLowerCase()} ${donation.thirdPartyReference}`),
  });
  return client.waitForDonation(reference, wait);
}

export function dispose(client: FundraisingClient): void {
  client.free();
}
