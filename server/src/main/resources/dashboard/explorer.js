// Capture explorer: an exchange and a time range, read through /api/v4/exchanges/{name}/records;
// the message rate over the range, a plot of any numeric field of JSON payloads, a table of
// records, and the range as CSV or Parquet.
import { api, download } from './api.js';
import { $, el, rows, time } from './dom.js';
import { TimeChart } from './chart.js';

const TABLE_ROWS = 200;
const BUCKETS = 120;

let wired = false;
let exchanges = [];
let records = [];
let fields = new Map();
let rateChart = null;
let fieldChart = null;

function fail(e) {
  $('error').textContent = e.message;
}

function wire() {
  if (wired) {
    return;
  }
  wired = true;
  $('ex-form').addEventListener('submit', e => {
    e.preventDefault();
    load().catch(fail);
  });
  $('ex-field').addEventListener('change', plotField);
  $('ex-csv').addEventListener('click', () => save('csv').catch(fail));
  $('ex-parquet').addEventListener('click', () => save('parquet').catch(fail));
}

function parseTime(text) {
  const t = text.trim();
  if (/^\d+$/.test(t)) {
    return Number(t);
  }
  const ms = Date.parse(t);
  if (Number.isNaN(ms)) {
    throw new Error('not a time: ' + t + ' (use ISO 8601 or epoch milliseconds)');
  }
  return ms;
}

function range() {
  const choice = $('ex-range').value;
  if (choice === 'custom') {
    return [parseTime($('ex-from').value), parseTime($('ex-to').value)];
  }
  if (choice === 'all') {
    const x = exchanges.find(e => e.name === $('ex-exchange').value);
    return [Math.max(0, x ? x.oldest_ts : 0), Date.now() + 60000];
  }
  const now = Date.now();
  return [now - Number(choice), now + 60000];
}

function query(format) {
  const [start, end] = range();
  return '/api/v4/exchanges/' + encodeURIComponent($('ex-exchange').value) + '/records?start=' + start + '&end=' + end
    + '&limit=' + encodeURIComponent($('ex-limit').value) + '&format=' + format;
}

async function save(format) {
  await download(query(format), $('ex-exchange').value + '.' + format);
}

// Every numeric field of a JSON object payload, nested ones as a.b.
function numericFields(value, prefix, out) {
  for (const [key, v] of Object.entries(value)) {
    const name = prefix + key;
    if (typeof v === 'number') {
      out[name] = v;
    } else if (v && typeof v === 'object' && !Array.isArray(v)) {
      numericFields(v, name + '.', out);
    }
  }
  return out;
}

async function load() {
  $('error').textContent = '';
  const body = await api(query('json'));
  records = body.data.map(r => {
    let values = {};
    if (typeof r.data === 'string') {
      try {
        const parsed = JSON.parse(r.data);
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
          values = numericFields(parsed, '', {});
        }
      } catch (e) {
        // not JSON: shown in the table, nothing to plot
      }
    }
    return { ...r, values };
  });
  fields = new Map();
  records.forEach(r => Object.keys(r.values).forEach(f => fields.set(f, (fields.get(f) || 0) + 1)));
  const select = $('ex-field');
  const previous = select.value;
  select.replaceChildren(...[...fields.keys()].sort().map(f => el('option', { value: f }, f + ' (' + fields.get(f) + ')')));
  if (fields.has(previous)) {
    select.value = previous;
  }
  $('ex-summary').textContent = records.length + ' records' + (records.length
    ? ' from ' + time(records[0].ts) + ' to ' + time(records[records.length - 1].ts) : '')
    + (fields.size ? ', numeric JSON fields: ' + fields.size : '');
  plotRate();
  plotField();
  rows($('ex-rows'), records.slice(-TABLE_ROWS).reverse(), r => el('tr', {},
    el('td', {}, time(r.ts)), el('td', {}, r.offset), el('td', {}, r.topic ?? ''),
    el('td', { class: 'payload' }, typeof r.data === 'string' ? r.data : JSON.stringify(r.data))));
}

function plotRate() {
  if (!rateChart) {
    rateChart = new TimeChart($('ex-rate-plot'), 'Messages / s', ['rate']);
  }
  if (!records.length) {
    rateChart.set([], [[]]);
    return;
  }
  const first = records[0].ts;
  const last = records[records.length - 1].ts;
  const width = Math.max(1000, Math.ceil((last - first + 1) / BUCKETS / 1000) * 1000);
  const counts = new Map();
  records.forEach(r => {
    const bucket = first + Math.floor((r.ts - first) / width) * width;
    counts.set(bucket, (counts.get(bucket) || 0) + 1);
  });
  const ts = [...counts.keys()].sort((a, b) => a - b);
  rateChart.set(ts, [ts.map(t => counts.get(t) / (width / 1000))]);
}

function plotField() {
  const field = $('ex-field').value;
  if (!fieldChart) {
    fieldChart = new TimeChart($('ex-field-plot'), 'JSON field', ['value']);
  }
  const points = records.filter(r => field in r.values);
  fieldChart.plot.series[1].label = field || 'value';
  fieldChart.set(points.map(r => r.ts), [points.map(r => r.values[field])]);
  $('ex-field-plot').dataset.field = field;
}

export async function refresh() {
  wire();
  exchanges = (await api('/api/v4/exchanges')).data;
  const select = $('ex-exchange');
  if (select.options.length !== exchanges.length) {
    select.replaceChildren(...exchanges.map(x => el('option', { value: x.name }, x.name + ' (' + x.topic + ')')));
  }
}
