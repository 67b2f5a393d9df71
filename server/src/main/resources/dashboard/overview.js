// Overview: headline figures and live plots of the last 15 minutes, from /api/v4/metrics/history.
import { api } from './api.js';
import { $, duration } from './dom.js';
import { TimeChart } from './chart.js';

const WINDOW_MS = 15 * 60 * 1000;
const SERIES = ['connections', 'messages_in', 'messages_out', 'bytes_in', 'bytes_out', 'dropped'];

let charts = null;
let data = null;

function ensureCharts() {
  if (charts) {
    return;
  }
  charts = {
    connections: new TimeChart($('ov-plot-connections'), 'Connections', ['connections']),
    messages: new TimeChart($('ov-plot-messages'), 'Messages / s', ['in', 'out']),
    bytes: new TimeChart($('ov-plot-bytes'), 'Bytes / s', ['in', 'out']),
    dropped: new TimeChart($('ov-plot-dropped'), 'Dropped / s', ['dropped']),
  };
}

export async function refresh() {
  ensureCharts();
  const since = data && data.ts.length ? data.ts[data.ts.length - 1] : 0;
  const body = await api('/api/v4/metrics/history?since=' + since);
  const h = body.data;
  if (!data) {
    data = { ts: [] };
    SERIES.forEach(s => data[s] = []);
  }
  data.ts.push(...h.ts);
  SERIES.forEach(s => data[s].push(...h[s]));
  const cutoff = Date.now() - WINDOW_MS;
  while (data.ts.length && data.ts[0] < cutoff) {
    data.ts.shift();
    SERIES.forEach(s => data[s].shift());
  }
  charts.connections.set(data.ts, [data.connections]);
  charts.messages.set(data.ts, [data.messages_in, data.messages_out]);
  charts.bytes.set(data.ts, [data.bytes_in, data.bytes_out]);
  charts.dropped.set(data.ts, [data.dropped]);
  const last = i => data[i].length ? data[i][data[i].length - 1] : 0;
  $('ov-uptime').textContent = duration(h.uptime_seconds);
  $('ov-version').textContent = h.version;
  $('ov-connections').textContent = last('connections');
  $('ov-in').textContent = last('messages_in');
  $('ov-out').textContent = last('messages_out');
  $('ov-dropped').textContent = last('dropped');
}
