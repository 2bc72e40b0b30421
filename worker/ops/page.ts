/**
 * The /ops page: plain HTML rendered on the worker, no script at all (so the
 * CSP allows none), one stylesheet, native controls (a GET form for partner
 * and range, a POST form per failed delivery for "Redeliver"), an SVG chart
 * with the same numbers in a table beside it.
 */
import { esc, htmlPage } from '../../rules/html';
import type { Delivery } from './store';
import type { Summary } from './report';

const int = (n: number) => n.toLocaleString('en-US');
const pct = (n: number, of: number) => (of > 0 ? `${((100 * n) / of).toFixed(1)}%` : '–');
const ms = (n: number | null) => (n === null ? '–' : `${int(n)} ms`);

export function duration(seconds: number | null): string {
  if (seconds === null) return '–';
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

export const RANGES = { '24h': 1, '7d': 7, '30d': 30 } as const;
export type RangeName = keyof typeof RANGES;

/** Where the build puts the stylesheet (worker/ops/ops.css) among the static assets: read through ASSETS, not bundled. */
export const OPS_CSS_ASSET = '/ops/ops.css';

const SERIES = [
  ['shown', 'Shown'],
  ['linkCreated', 'Link created'],
  ['returned', 'Returned'],
  ['final', 'Final'],
] as const;
const COLORS = ['#1d4ed8', '#0f766e', '#b45309', '#6d28d9'];

/** Grouped bars per day (the four funnel steps), drawn with attributes only (no inline styles: the CSP allows none). */
function chart(days: Summary['days']): string {
  const W = 960;
  const H = 220;
  const pad = { l: 44, r: 8, t: 10, b: 28 };
  const max = Math.max(1, ...days.flatMap((d) => SERIES.map(([k]) => d[k])));
  const slot = (W - pad.l - pad.r) / Math.max(1, days.length);
  const bar = Math.max(1, (slot * 0.8) / SERIES.length);
  const y = (v: number) => pad.t + (H - pad.t - pad.b) * (1 - v / max);
  const bars = days
    .map((d, i) =>
      SERIES.map(([k], j) => {
        const x = pad.l + i * slot + slot * 0.1 + j * bar;
        const top = y(d[k]);
        return `<rect x="${x.toFixed(1)}" y="${top.toFixed(1)}" width="${bar.toFixed(1)}" height="${(H - pad.b - top).toFixed(1)}" fill="${COLORS[j]}"/>`;
      }).join(''),
    )
    .join('');
  const every = Math.ceil(days.length / 10);
  const labels = days
    .map((d, i) =>
      i % every === 0
        ? `<text x="${(pad.l + i * slot + slot / 2).toFixed(1)}" y="${H - 8}" text-anchor="middle" font-size="12" fill="#17202a">${d.day.slice(5)}</text>`
        : '',
    )
    .join('');
  const axis = `<line x1="${pad.l}" y1="${H - pad.b}" x2="${W - pad.r}" y2="${H - pad.b}" stroke="#4b5563"/>
<text x="${pad.l - 6}" y="${pad.t + 10}" text-anchor="end" font-size="12" fill="#17202a">${int(max)}</text>
<text x="${pad.l - 6}" y="${H - pad.b}" text-anchor="end" font-size="12" fill="#17202a">0</text>`;
  return `<svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-labelledby="chart-title" focusable="false">
<title id="chart-title">Funnel per day: shown, link created, returned and final (the table below has the numbers)</title>
${axis}${bars}${labels}</svg>
<ul class="legend">${SERIES.map(([, name], j) => `<li><span class="k${j}" aria-hidden="true"></span>${name}</li>`).join('')}</ul>`;
}

export interface PageInput {
  partners: string[];
  partner?: string;
  range: RangeName;
  summary: Summary;
  failed: Delivery[];
  /** After a redelivery, what happened (shown as a status message). */
  notice?: { ok: boolean; text: string };
  /** Settings that make the worker answer 500 MISCONFIGURED (names only). */
  misconfigured?: string[];
  /** What works but loses something (binding-warnings.ts), each a sentence naming the binding. */
  warnings?: string[];
}

export function opsPage(p: PageInput): string {
  const s = p.summary;
  const f = s.funnel;
  const query = (extra = '') => `?${p.partner ? `partner=${encodeURIComponent(p.partner)}&` : ''}range=${p.range}${extra}`;
  const steps: [string, number][] = [
    ['Widget shown', f.shown],
    ['Link created', f.linkCreated],
    ['Returned from the hosted flow', f.returned],
    ['Final status', f.final],
  ];
  const funnelRows = steps
    .map(
      ([name, n], i) =>
        `<tr><th scope="row">${name}</th><td class="n">${int(n)}</td><td class="n">${i ? pct(n, steps[i - 1]![1]) : '–'}</td><td class="n">${pct(n, f.shown)}</td></tr>`,
    )
    .join('\n');
  const statuses = Object.entries(f.byCheckStatus).sort((a, b) => b[1] - a[1]);
  const statusRows = statuses.length
    ? statuses
        .map(([k, n]) => `<tr><th scope="row">${esc(k)}</th><td class="n">${int(n)}</td><td class="n">${pct(n, f.final)}</td></tr>`)
        .join('\n')
    : '<tr><td colspan="3">No final statuses in this range.</td></tr>';
  const vendorRows = s.vendor.length
    ? s.vendor
        .map(
          (v) =>
            `<tr><th scope="row">${esc(v.operation)}</th><td class="n">${int(v.calls)}</td>${(
              ['ok', '4xx', '5xx', 'timeout', 'network'] as const
            )
              .map((o) => `<td class="n">${int(v.byOutcome[o])}</td>`)
              .join('')}<td class="n">${ms(v.p50Ms)}</td><td class="n">${ms(v.p95Ms)}</td></tr>`,
        )
        .join('\n')
    : '<tr><td colspan="9">No vendor calls in this range.</td></tr>';
  const deliveryCell = (d: Record<string, number>) => {
    const delivered = (d.delivered ?? 0) + (d.gone ?? 0);
    const undelivered = (d.queued ?? 0) + (d.failed ?? 0) + (d.dead ?? 0);
    return `${int(delivered)} delivered, ${int(undelivered)} not (${int(d.dead ?? 0)} dead)`;
  };
  const perVendorRows = s.vendors.length
    ? s.vendors
        .map(
          (v) =>
            `<tr><th scope="row">${esc(v.vendor)}</th><td class="n">${int(v.linkCreated)}</td><td class="n">${int(v.final)}</td><td class="n">${int(v.failedOverFrom)}${
              Object.keys(v.failoverCauses).length
                ? ` (${Object.entries(v.failoverCauses)
                    .map(([k, n]) => `${esc(k)} ${int(n)}`)
                    .join(', ')})`
                : ''
            }</td><td class="n">${int(v.failedOverTo)}</td><td class="n">${v.okShare === null ? '–' : `${(100 * v.okShare).toFixed(1)}%`}</td><td class="n">${ms(
              v.calls.find((l) => l.operation === 'vendor-link')?.p95Ms ?? null,
            )}</td><td>${deliveryCell(v.deliveries)}</td></tr>`,
        )
        .join('\n')
    : '<tr><td colspan="8">No vendor in this range.</td></tr>';
  const dayRows = s.days
    .map(
      (d) =>
        `<tr><th scope="row">${d.day}</th><td class="n">${int(d.shown)}</td><td class="n">${int(d.linkCreated)}</td><td class="n">${int(d.returned)}</td><td class="n">${int(d.final)}</td></tr>`,
    )
    .join('\n');
  const failedRows = p.failed.length
    ? p.failed
        .map(
          (
            d,
          ) => `<tr><td><code>${esc(d.verificationId)}</code></td><td>${esc(d.partnerId)}</td><td>${esc(d.type)}</td><td>${esc(d.state)}</td><td class="n">${int(d.attempts)}</td><td>${d.lastResponseStatus ?? esc(d.lastFailure ?? '–')}</td><td>${esc(d.lastAttemptAt.slice(0, 10))}<br>${esc(d.lastAttemptAt.slice(11, 16))} UTC</td>
<td><form method="post" action="/ops/redeliver${query()}"><input type="hidden" name="verificationId" value="${esc(d.verificationId)}"><button type="submit" class="secondary">Redeliver<span class="visually-hidden"> ${esc(d.type)} for ${esc(d.verificationId)}</span></button></form></td></tr>`,
        )
        .join('\n')
    : '<tr><td colspan="8">Every event was delivered.</td></tr>';
  const partnerOptions = [
    `<option value=""${p.partner ? '' : ' selected'}>All partners</option>`,
    ...p.partners.map((id) => `<option value="${esc(id)}"${id === p.partner ? ' selected' : ''}>${esc(id)}</option>`),
  ].join('');
  const rangeRadios = (Object.keys(RANGES) as RangeName[])
    .map(
      (r) =>
        `<span class="radio"><input type="radio" id="range-${r}" name="range" value="${r}"${r === p.range ? ' checked' : ''}><label for="range-${r}">${r === '24h' ? 'Last 24 hours' : r === '7d' ? 'Last 7 days' : 'Last 30 days'}</label></span>`,
    )
    .join(' ');
  const w = s.webhooks;
  const title = `Operator console – ${p.partner || 'all partners'}, ${p.range}`;
  const body = `<header>
<h1>Operator console</h1>
<p class="note">Counts per partner. No personal data: no names, dates of birth, phone numbers or customer references are kept here. Times are UTC.</p>
</header>
<main>
${p.notice ? `<p class="status${p.notice.ok ? '' : ' bad'}" role="status">${esc(p.notice.text)}</p>` : ''}
${(p.warnings ?? []).map((w) => `<p class="status bad" role="alert">Warning: ${esc(w)}.</p>`).join('\n')}
${p.misconfigured?.length ? `<p class="status bad" role="alert">Misconfigured: ${esc(p.misconfigured.join(', '))}. Every /api and /v1 route answers 500 MISCONFIGURED until these settings are fixed.</p>` : ''}
<section aria-labelledby="filters-h">
<h2 id="filters-h">Partner and range</h2>
<form class="filters" method="get" action="/ops">
<div><label for="partner">Partner</label><select id="partner" name="partner">${partnerOptions}</select></div>
<fieldset><legend>Range</legend>${rangeRadios}</fieldset>
<button type="submit">Show</button>
</form>
</section>
<section aria-labelledby="funnel-h">
<h2 id="funnel-h">Funnel</h2>
<table>
<caption>People who got through, step by step</caption>
<thead><tr><th scope="col">Step</th><th scope="col" class="n">Count</th><th scope="col" class="n">Of the step before</th><th scope="col" class="n">Of shown</th></tr></thead>
<tbody>
${funnelRows}
</tbody>
</table>
<div class="stats">
<div>Links refused<strong>${int(f.linkRefused)}</strong></div>
<div>Expired<strong>${int(f.expired)}</strong></div>
<div>Canceled<strong>${int(f.canceled)}</strong></div>
<div>Median time to final<strong>${duration(f.medianSecondsToFinal)}</strong></div>
<div>p90 time to final<strong>${duration(s.p90SecondsToFinal)}</strong></div>
</div>
${
  s.refusedFields.length
    ? `<p>Refused fields: ${s.refusedFields
        .slice(0, 8)
        .map(([k, n]) => `<code>${esc(k)}</code> ${int(n)}`)
        .join(', ')}</p>`
    : ''
}
</section>
<section aria-labelledby="status-h">
<h2 id="status-h">Final status mix</h2>
<table>
<thead><tr><th scope="col">Check status</th><th scope="col" class="n">Count</th><th scope="col" class="n">Share</th></tr></thead>
<tbody>
${statusRows}
</tbody>
</table>
</section>
<section aria-labelledby="days-h">
<h2 id="days-h">Per day</h2>
${chart(s.days)}
<details>
<summary>The chart as a table</summary>
<table>
<thead><tr><th scope="col">Day</th><th scope="col" class="n">Shown</th><th scope="col" class="n">Link created</th><th scope="col" class="n">Returned</th><th scope="col" class="n">Final</th></tr></thead>
<tbody>
${dayRows}
</tbody>
</table>
</details>
</section>
<section aria-labelledby="vendors-h">
<h2 id="vendors-h">Vendors</h2>
<p class="note">Failed over: links the vendor did not make because it faulted or was known down (the next vendor made them), with why.
Health: the share of its calls it answered (a 4xx counts as answered).</p>
<table>
<thead><tr><th scope="col">Vendor</th><th scope="col" class="n">Links</th><th scope="col" class="n">Final</th><th scope="col" class="n">Failed over from</th><th scope="col" class="n">Failed over to</th><th scope="col" class="n">Health</th><th scope="col" class="n">Link p95</th><th scope="col">Webhook deliveries</th></tr></thead>
<tbody>
${perVendorRows}
</tbody>
</table>
</section>
<section aria-labelledby="vendor-h">
<h2 id="vendor-h">Vendor calls</h2>
<table>
<thead><tr><th scope="col">Operation</th><th scope="col" class="n">Calls</th><th scope="col" class="n">OK</th><th scope="col" class="n">4xx</th><th scope="col" class="n">5xx</th><th scope="col" class="n">Timeout</th><th scope="col" class="n">Network</th><th scope="col" class="n">p50</th><th scope="col" class="n">p95</th></tr></thead>
<tbody>
${vendorRows}
</tbody>
</table>
</section>
<section aria-labelledby="hooks-h">
<h2 id="hooks-h">Webhooks</h2>
<div class="stats">
<div>Attempts<strong>${int(w.attempts)}</strong></div>
<div>Delivered<strong>${int(w.delivered)} (${pct(w.delivered, w.attempts)})</strong></div>
<div>Failed, retried<strong>${int(w.retried)}</strong></div>
<div>Failed, given up<strong>${int(w.dead)}</strong></div>
<div>Latency p50 / p95<strong>${ms(w.p50Ms)} / ${ms(w.p95Ms)}</strong></div>
</div>
<div class="scroll">
<table>
<caption>Undelivered events (queued, failed or dead), newest first</caption>
<thead><tr><th scope="col">Verification</th><th scope="col">Partner</th><th scope="col">Event</th><th scope="col">State</th><th scope="col" class="n">Attempts</th><th scope="col">Last answer</th><th scope="col">Last attempt</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
<tbody>
${failedRows}
</tbody>
</table>
</div>
<p><a href="/ops/api/webhooks?state=all">All deliveries as JSON</a> · <a href="/ops/api/funnel${p.partner ? `?partner=${encodeURIComponent(p.partner)}` : ''}">Funnel as JSON</a></p>
</section>
</main>
`;
  return htmlPage({ lang: 'en', title, stylesheet: OPS_CSS_ASSET, body });
}
