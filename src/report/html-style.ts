/**
 * The run report's inline stylesheet (the HTML report is one file with no external resources):
 * a readable page on screen and in print, tables that wrap long values, and status badges in the
 * colours the SVG renderer and the web UI use (src/render/colours.ts).
 */
import { NODE_STATUSES } from '../model/types.js';
import { STATUS_COLOURS } from '../render/index.js';

const statusRules = NODE_STATUSES.map((s) => {
  const c = STATUS_COLOURS[s];
  return `.status-${s}{background:${c.fill};border-color:${c.border};color:${c.font}}`;
}).join('\n');

export const REPORT_CSS = `
:root{color-scheme:light;font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;color:#0f172a;background:#fff}
body{margin:0 auto;max-width:1200px;padding:1.5rem;line-height:1.45}
h1{font-size:1.6rem;margin:0 0 .75rem}
h2{font-size:1.2rem;margin:2rem 0 .5rem;border-bottom:1px solid #e2e8f0;padding-bottom:.25rem}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{border:1px solid #e2e8f0;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f1f5f9;font-weight:600}
tbody tr:nth-child(even){background:#f8fafc}
td.value,pre{white-space:pre-wrap;overflow-wrap:anywhere;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85rem}
td.num{text-align:right;white-space:nowrap}
td.time{white-space:nowrap}
pre{background:#f8fafc;border:1px solid #e2e8f0;border-radius:4px;padding:.75rem;margin:0}
dl.summary{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0}
dl.summary dt{font-weight:600;color:#475569}
dl.summary dd{margin:0}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
.more{color:#64748b;font-style:italic;font-family:system-ui,sans-serif}
.none{color:#64748b;font-style:italic}
.note{color:#78350f;background:#fef3c7;border-left:3px solid #d97706;padding:.25rem .5rem}
.label{font-weight:600;font-family:system-ui,sans-serif}
.badge{display:inline-block;border:1px solid #94a3b8;border-radius:999px;padding:0 .5rem;font-size:.8rem;white-space:nowrap}
.graph{overflow:auto;border:1px solid #e2e8f0;border-radius:4px;padding:.5rem;text-align:center}
.graph svg{max-width:100%;height:auto}
ul.legend{list-style:none;padding:0;margin:.5rem 0 0;display:flex;flex-wrap:wrap;gap:.5rem}
${statusRules}
@media print{body{max-width:none;padding:0}.graph{break-inside:avoid}}
`;
