// The words, numbers, amounts and dates of the elements: the texts of <fundraising-campaign> and
// <fundraising-donation> (CAMPAIGN_TEXTS and DONATION_TEXTS below, each element's file bundling
// its own; <fundraising-event> has its table in event-text.js).
//
// Language: the nearest `lang` attribute (the element's own, else an ancestor's, usually the
// page's <html lang>), else the browser's language. It sets the locale of every number, amount
// and date (Intl), and picks the built-in texts: English, and Welsh (cy). Any other language
// gets English texts with its own number and date formats.
//
// Every text can be replaced by the partner with an attribute `text-<key>` on the element
// (`text-donate="Give now"`). Placeholders in braces are filled in: `{raised}`, `{count}`...
// A text that depends on a number has one form per plural category of the language
// (Intl.PluralRules: zero, one, two, few, many, other): `text-donations-one`,
// `text-donations-other`..., or `text-donations` for every count.

/** The Intl formatters made so far, by kind, locale and options. */
const formatters = new Map();

/**
 * An Intl formatter (`Kind`: NumberFormat, DateTimeFormat) for `locale` and `options`, made once
 * per page: making one costs far more than using it (about 0.2 ms against 1 µs), and a list of
 * 100 fundraisers formats 300 amounts.
 */
function formatter(Kind, locale, options) {
  const key = `${Kind.name} ${locale} ${JSON.stringify(options)}`;
  let made = formatters.get(key);
  if (!made) formatters.set(key, (made = new Kind(locale, options)));
  return made;
}

/** Plural categories of Intl.PluralRules, in the order the attributes are looked up. */
const CATEGORIES = ["zero", "one", "two", "few", "many", "other"];

/** The built-in texts of <fundraising-campaign>. A plural text is an object of categories (`other` always present). */
export const CAMPAIGN_TEXTS = {
  en: {
    loading: "Loading campaign…",
    "not-found": "No campaign is called “{name}”.",
    "load-failed": "The campaign could not be loaded: {message}",
    unsupported: "This browser cannot show the campaign: {message}.",
    "missing-attributes": { one: "Missing attribute: {names}.", other: "Missing attributes: {names}." },
    "amount-raised": "Amount raised",
    progress: "{raised} raised of a {target} target ({percent})",
    raised: "{raised} raised of {target} ({percent})",
    donations: { one: "{count} donation", other: "{count} donations" },
    ends: "Ends on {date}",
    ended: "Ended on {date}",
    opens: "Opens on {date}",
    closed: "This campaign is not taking donations.",
    donate: "Donate",
  },
  cy: {
    loading: "Wrthi’n llwytho’r ymgyrch…",
    "not-found": "Does dim ymgyrch o’r enw “{name}”.",
    "load-failed": "Doedd dim modd llwytho’r ymgyrch: {message}",
    unsupported: "Does dim modd i’r porwr hwn ddangos yr ymgyrch: {message}.",
    "missing-attributes": { one: "Priodoledd ar goll: {names}.", other: "Priodoleddau ar goll: {names}." },
    "amount-raised": "Swm a godwyd",
    progress: "{raised} wedi’i godi o darged o {target} ({percent})",
    raised: "{raised} wedi’i godi o {target} ({percent})",
    donations: { one: "{count} rhodd", other: "{count} o roddion" },
    ends: "Yn dod i ben ar {date}",
    ended: "Daeth i ben ar {date}",
    opens: "Yn agor ar {date}",
    closed: "Nid yw’r ymgyrch hon yn derbyn rhoddion.",
    donate: "Cyfrannu",
  },
};

/** The built-in texts of <fundraising-donation>, as above. */
export const DONATION_TEXTS = {
  en: {
    "missing-attributes": { one: "Missing attribute: {names}.", other: "Missing attributes: {names}." },
    waiting: "Waiting for your donation to be confirmed…",
    pending: "Your donation is being processed…",
    reference: "Reference: {reference}",
    "thanks-name": "Thank you, {name}!",
    thanks: "Thank you!",
    confirmed: "Your donation of {amount} is confirmed.",
    "not-completed": "Your donation was not completed",
    rejected: "The payment was declined, so no money was taken.",
    cancelled: "The donation was cancelled, so no money was taken.",
    refunded: "The donation was refunded.",
    "other-status": "Its status is {status}.",
    "timeout-title": "Your donation is not confirmed yet",
    timeout: "It can take a few minutes for a donation to be confirmed. Please check back later; nothing more is needed from you.",
    "failed-title": "Your donation could not be checked",
    failed: "{message}",
    "missing-title": "This donation cannot be shown",
    "unsupported-title": "This browser cannot show your donation",
  },
  cy: {
    "missing-attributes": { one: "Priodoledd ar goll: {names}.", other: "Priodoleddau ar goll: {names}." },
    waiting: "Yn aros i’ch rhodd gael ei chadarnhau…",
    pending: "Mae eich rhodd yn cael ei phrosesu…",
    reference: "Cyfeirnod: {reference}",
    "thanks-name": "Diolch, {name}!",
    thanks: "Diolch!",
    confirmed: "Mae eich rhodd o {amount} wedi’i chadarnhau.",
    "not-completed": "Ni chwblhawyd eich rhodd",
    rejected: "Gwrthodwyd y taliad, felly ni chymerwyd unrhyw arian.",
    cancelled: "Canslwyd y rhodd, felly ni chymerwyd unrhyw arian.",
    refunded: "Ad-dalwyd y rhodd.",
    "other-status": "Ei statws yw {status}.",
    "timeout-title": "Nid yw eich rhodd wedi’i chadarnhau eto",
    timeout: "Gall gymryd ychydig funudau i rodd gael ei chadarnhau. Dewch yn ôl yn nes ymlaen; does dim angen i chi wneud dim byd arall.",
    "failed-title": "Doedd dim modd gwirio eich rhodd",
    failed: "{message}",
    "missing-title": "Does dim modd dangos y rhodd hon",
    "unsupported-title": "Does dim modd i’r porwr hwn ddangos eich rhodd",
  },
};

/**
 * A long date ("30 Tachwedd 2025") for a built-in language the browser's Intl lacks (Chromium
 * ships no Welsh date names): the day, the month's name and the year, in that order.
 */
const MONTHS = {
  cy: ["Ionawr", "Chwefror", "Mawrth", "Ebrill", "Mai", "Mehefin", "Gorffennaf", "Awst", "Medi", "Hydref", "Tachwedd", "Rhagfyr"],
};

/**
 * The `text-*` attributes of the texts of `texts` (one element's table), with the plural forms
 * of the plural texts: an element lists them in its observedAttributes, so a change shows at once.
 */
export function textAttributes(texts) {
  return Object.keys(texts.en).flatMap((key) => {
    const plural = typeof texts.en[key] === "object";
    return [`text-${key}`, ...(plural ? CATEGORIES.map((c) => `text-${key}-${c}`) : [])];
  });
}

/** The canonical locale of `tag`, or null when it is not a valid language tag. */
function canonical(tag) {
  if (!tag) return null;
  try {
    return Intl.getCanonicalLocales(tag)[0] ?? null;
  } catch {
    return null;
  }
}

/**
 * The language of `element`: its nearest `lang` attribute (in its own tree; the host's page
 * for an element in a shadow root), else the browser's language, else English.
 */
export function localeOf(element) {
  const tagged = element.closest("[lang]");
  return canonical(tagged?.getAttribute("lang")) ?? canonical(navigator.language) ?? "en";
}

/**
 * The texts, numbers and dates of one element in its language:
 * `text(key, values)` (a string), `nodes(key, values)` (strings and nodes, for a text with
 * elements in it), and the formatters.
 */
export class Words {
  /**
   * `element`: where the `text-*` attributes and the language come from; `texts`: the element's
   * built-in texts by language, English always among them.
   */
  constructor(element, texts) {
    this.element = element;
    this.locale = localeOf(element);
    const primary = this.locale.split("-")[0].toLowerCase();
    /** The language of the built-in texts in use (`en` or `cy`). */
    this.language = Object.prototype.hasOwnProperty.call(texts, primary) ? primary : "en";
    this.english = texts.en;
    this.table = texts[this.language];
    this.plurals = new Intl.PluralRules(this.locale);
  }

  /** The template of `key` (for `count` when the text has plural forms). */
  template(key, count) {
    const own = (name) => this.element.getAttribute(name);
    const builtIn = this.table[key] ?? this.english[key];
    if (typeof builtIn !== "object") return own(`text-${key}`) ?? builtIn;
    const category = this.plurals.select(count ?? 0);
    return own(`text-${key}-${category}`) ?? own(`text-${key}-other`) ?? own(`text-${key}`)
      ?? builtIn[category] ?? builtIn.other;
  }

  /**
   * The text of `key` with its placeholders filled from `values` (strings or numbers); `count`
   * picks the plural form of a text that has them.
   */
  text(key, values = {}, count = undefined) {
    return this.nodes(key, values, count).map((part) => (typeof part === "string" ? part : part.textContent)).join("");
  }

  /**
   * The text of `key` as a list of strings and nodes: a placeholder whose value is a Node
   * becomes that node (the amount raised as its own element, for example). An unknown
   * placeholder stays as written.
   */
  nodes(key, values = {}, count = undefined) {
    const template = this.template(key, count);
    return template.split(/(\{[a-z]+\})/).filter((part) => part !== "").map((part) => {
      const name = /^\{([a-z]+)\}$/.exec(part)?.[1];
      if (name === undefined || !(name in values)) return part;
      const value = values[name];
      return value instanceof Node ? value : String(value);
    });
  }

  /** An amount in a currency (the campaign's or the donation's); symbol + number when the code is unknown. */
  money(amount, currencyCode, currencySymbol) {
    if (amount === null || amount === undefined || Number.isNaN(Number(amount))) return "—";
    return formatMoney(Number(amount), currencyCode, currencySymbol, this.locale);
  }

  /** A count (donations). */
  number(value) {
    return formatter(Intl.NumberFormat, this.locale).format(value);
  }

  /** A share from 0 to 1 as a whole percentage, rounded down (99.6% is not yet 100%). */
  percent(share) {
    return formatter(Intl.NumberFormat, this.locale, { style: "percent", maximumFractionDigits: 0 })
      .format(Math.floor(share * 100) / 100);
  }

  /** A date (UTC day, as the service stores it), in full. */
  date(date) {
    const months = MONTHS[this.language];
    if (months && Intl.DateTimeFormat.supportedLocalesOf([this.locale]).length === 0) {
      return `${date.getUTCDate()} ${months[date.getUTCMonth()]} ${date.getUTCFullYear()}`;
    }
    return formatter(Intl.DateTimeFormat, this.locale, { dateStyle: "long", timeZone: "UTC" }).format(date);
  }
}

/** Formats an amount in a currency with `locale` (the page's when absent); falls back to symbol + number. */
export function formatMoney(amount, currencyCode, currencySymbol, locale) {
  if (amount === null || amount === undefined || Number.isNaN(Number(amount))) return "—";
  const value = Number(amount);
  if (currencyCode) {
    try {
      return formatter(Intl.NumberFormat, locale, { style: "currency", currency: currencyCode }).format(value);
    } catch {
      // An unknown currency code: fall through to the symbol.
    }
  }
  const number = formatter(Intl.NumberFormat, locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(value);
  return `${currencySymbol ?? ""}${number}`;
}
