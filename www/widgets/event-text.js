// The built-in texts of <fundraising-event>, in English and Welsh (cy). Each can be replaced with
// an attribute `text-<key>` on the element, plural forms with `text-<key>-<category>`, as for the
// other elements (widget-text.js); docs/widgets.md lists them.

/** The texts by language; a plural text is an object of plural categories (`other` always present). */
export const EVENT_TEXTS = {
  en: {
    loading: "Loading the fundraisers…",
    "not-found": "No event has the id {id}.",
    "load-failed": "The fundraisers could not be loaded: {message}",
    unsupported: "This browser cannot show the fundraisers: {message}.",
    "missing-attributes": { one: "Missing attribute: {names}.", other: "Missing attributes: {names}." },
    "invalid-attribute": "The {name} attribute is not valid: “{value}”.",
    heading: "Fundraisers",
    total: "{raised} raised in all",
    pages: { one: "{count} fundraising page", other: "{count} fundraising pages" },
    first: {
      one: "Only the first of {total} fundraising pages is ranked.",
      other: "Only the first {count} of {total} fundraising pages are ranked.",
    },
    ranking: "Ranking the fundraisers: {count} of {total} so far…",
    list: "Fundraisers by amount raised",
    raised: "{raised} raised of {target} ({percent})",
    "raised-only": "{raised} raised",
    progress: "{raised} raised of a {target} target ({percent})",
    owner: "by {owner}",
    showing: "Showing {shown} of {count}",
    "show-more": "Show more",
    empty: "No one is fundraising for this event yet.",
  },
  cy: {
    loading: "Wrthi’n llwytho’r codwyr arian…",
    "not-found": "Does dim digwyddiad â’r rhif {id}.",
    "load-failed": "Doedd dim modd llwytho’r codwyr arian: {message}",
    unsupported: "Does dim modd i’r porwr hwn ddangos y codwyr arian: {message}.",
    "missing-attributes": { one: "Priodoledd ar goll: {names}.", other: "Priodoleddau ar goll: {names}." },
    "invalid-attribute": "Nid yw’r briodoledd {name} yn ddilys: “{value}”.",
    heading: "Codwyr arian",
    total: "{raised} wedi’i godi i gyd",
    pages: { one: "{count} tudalen codi arian", other: "{count} o dudalennau codi arian" },
    first: {
      one: "Dim ond y gyntaf o’r {total} o dudalennau codi arian sydd yn y rhestr.",
      other: "Dim ond y {count} cyntaf o’r {total} o dudalennau codi arian sydd yn y rhestr.",
    },
    ranking: "Wrthi’n rhestru’r codwyr arian: {count} o {total} hyd yma…",
    list: "Codwyr arian yn ôl y swm a godwyd",
    raised: "{raised} wedi’i godi o {target} ({percent})",
    "raised-only": "{raised} wedi’i godi",
    progress: "{raised} wedi’i godi o darged o {target} ({percent})",
    owner: "gan {owner}",
    showing: "Yn dangos {shown} o {count}",
    "show-more": "Dangos rhagor",
    empty: "Does neb yn codi arian ar gyfer y digwyddiad hwn eto.",
  },
};
