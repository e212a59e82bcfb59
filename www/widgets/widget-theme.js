// The theme the elements share: every colour, the font, the corner radii, the spacing and the
// progress bar are CSS custom properties a partner sets from its own style sheet
// (`fundraising-campaign { --fundraising-accent: #7a1f5c; }`), with defaults for the light and
// the dark colour scheme. docs/widgets.md lists them. The colours only <fundraising-donation>
// draws with (its confirmed and not-completed boxes) are DONATION_PALETTES, which its file
// alone bundles.

/** The default colours of each scheme; every one can be set with `--fundraising-<name>`. */
export const PALETTES = {
  light: {
    text: "#1d2430",
    muted: "#4a5565",
    background: "#ffffff",
    border: "#d7dce3",
    accent: "#0b6b4a",
    "bar-track": "#e8ecf1",
    "bar-fill": "linear-gradient(90deg, #0f8a5f, #2bb673)",
    "button-background": "#0b6b4a",
    "button-text": "#ffffff",
    focus: "#1a56db",
    "error-background": "#fff5f5",
    "error-border": "#e3a3a3",
    "error-text": "#8a1c1c",
  },
  dark: {
    text: "#e6e9ef",
    muted: "#b4bcc8",
    background: "#161b22",
    border: "#3a4350",
    accent: "#5fd3a0",
    "bar-track": "#2a313b",
    "bar-fill": "linear-gradient(90deg, #2bb673, #5fd3a0)",
    "button-background": "#5fd3a0",
    "button-text": "#0b1f17",
    focus: "#8ab4ff",
    "error-background": "#2c1517",
    "error-border": "#8a3a3a",
    "error-text": "#ffb4b4",
  },
};

/** The default colours of <fundraising-donation>'s own boxes, as above. */
export const DONATION_PALETTES = {
  light: {
    "success-background": "#f2fbf6",
    "success-border": "#9fd3bd",
    "warning-background": "#fffaf0",
    "warning-border": "#e0c48a",
    "warning-text": "#5c4300",
  },
  dark: {
    "success-background": "#12261d",
    "success-border": "#2f6b51",
    "warning-background": "#2a2212",
    "warning-border": "#7a6330",
    "warning-text": "#f3d58c",
  },
};

/** The other custom properties and their defaults. */
export const SHAPE = {
  font: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  radius: "12px",
  "button-radius": "8px",
  spacing: "1.25rem",
  "bar-height": "0.75rem",
};

const declare = (values) => Object.entries(values).map(([name, value]) => `--_${name}: var(--fundraising-${name}, ${value});`).join(" ");

/**
 * The private `--_*` properties of `palettes` (and of `shape`) on the element: each the partner's
 * `--fundraising-*` when set, else the default of the colour scheme. Dark follows
 * `prefers-color-scheme` unless `theme="light"`; `theme="dark"` forces it.
 */
export const themeProperties = (palettes, shape = {}) => `
  :host { ${declare({ ...palettes.light, ...shape })} }
  :host([theme=dark]) { ${declare(palettes.dark)} }
  @media (prefers-color-scheme: dark) {
    :host(:not([theme=light])) { ${declare(palettes.dark)} }
  }
`;

/** The theme every element shares, with its loading state's spinner. */
export const THEME = `${themeProperties(PALETTES, SHAPE)}
  :host { display: block; max-width: 32rem; font-family: var(--_font); color: var(--_text); }
  :host([hidden]) { display: none; }
  .spinner { display: inline-block; width: .9em; height: .9em; margin-right: .5em; vertical-align: -.1em;
             border: 2px solid var(--_border); border-top-color: var(--_accent); border-radius: 50%;
             animation: spin .8s linear infinite; }
  @keyframes spin { to { transform: rotate(360deg); } }
  @media (prefers-reduced-motion: reduce) { .spinner { animation: none; } }
`;
