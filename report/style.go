package report

// css is the page's only style: system fonts, readable line length,
// quiet tables with tabular figures, summary cards, and print rules.
const css = `
:root { --fg:#1f2328; --muted:#59636e; --line:#d1d9e0; --soft:#f6f8fa; --accent:#0b5cad; --warn:#9a6700; --warnbg:#fff8e5; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; color: var(--fg); background: #fff;
  font: 15px/1.55 -apple-system, BlinkMacSystemFont, "Segoe UI", "Noto Sans", Helvetica, Arial, "Liberation Sans", sans-serif; }
main { max-width: 1080px; margin: 0 auto; padding: 32px 28px 64px; }
header { border-bottom: 1px solid var(--line); margin-bottom: 20px; padding-bottom: 12px; }
h1 { font-size: 28px; line-height: 1.25; margin: 0 0 6px; letter-spacing: -0.01em; }
h2 { font-size: 21px; margin: 36px 0 12px; padding-bottom: 6px; border-bottom: 1px solid var(--line); }
h3 { font-size: 16px; margin: 24px 0 8px; }
p { margin: 8px 0 12px; max-width: 900px; }
p.note { color: var(--muted); font-size: 13.5px; }
.subtitle { color: var(--muted); margin: 0; max-width: none; }
code { font: 13px/1.4 ui-monospace, SFMono-Regular, "DejaVu Sans Mono", Menlo, Consolas, monospace; ` +
	`background: var(--soft); padding: 1px 5px; border-radius: 4px; }
ul { padding-left: 22px; max-width: 900px; }
li { margin: 4px 0; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
.toc { font-size: 13.5px; color: var(--muted); margin: 18px 0 0; display: flex; flex-wrap: wrap; gap: 6px 14px; }
.toc span { font-weight: 600; color: var(--fg); }
.summary h2 { margin-top: 8px; }
.facts { display: grid; grid-template-columns: repeat(auto-fit, minmax(230px, 1fr)); gap: 12px; }
.fact { border: 1px solid var(--line); border-left: 4px solid var(--accent); border-radius: 6px; padding: 10px 14px; background: #fff; }
.fact.warn { border-left-color: var(--warn); background: var(--warnbg); }
.fact.warn .value { font-size: 16px; }
.fact .label { font-size: 12px; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); }
.fact .value { font-size: 19px; font-weight: 600; margin: 2px 0; font-variant-numeric: tabular-nums; }
.fact .detail { font-size: 13px; color: var(--muted); }
.table-wrap { overflow-x: auto; margin: 10px 0 18px; }
table { border-collapse: collapse; font-size: 13.5px; font-variant-numeric: tabular-nums; min-width: 50%; }
caption { text-align: left; font-weight: 600; padding: 0 0 6px; }
th, td { border-bottom: 1px solid var(--line); padding: 5px 10px; text-align: left; vertical-align: top; }
th { background: var(--soft); font-weight: 600; white-space: nowrap; }
tbody tr:nth-child(even) td { background: #fbfcfd; }
td.num, th.num { text-align: right; white-space: nowrap; }
figure.chart { margin: 14px 0 22px; padding: 10px; border: 1px solid var(--line); border-radius: 6px; }
figure.chart svg { display: block; width: 100%; height: auto; max-width: 860px; margin: 0 auto; }
figure.chart svg text { font-family: "Liberation Serif", "Times New Roman", Times, serif !important; }
figcaption { font-size: 13px; color: var(--muted); margin-top: 6px; }
@media print {
  main { max-width: none; padding: 0; }
  figure.chart, table, .fact { break-inside: avoid; }
  .toc { display: none; }
  a { color: inherit; }
}
`
