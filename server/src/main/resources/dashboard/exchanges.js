// Exchanges: is capture keeping up? Rates, ring fill, writer queue, files, disk and WAL.
import { api } from './api.js';
import { $, el, rows, time, bytes } from './dom.js';

export async function refresh() {
  const body = await api('/api/v4/exchanges');
  rows($('exchanges-rows'), body.data, x => el('tr', { 'data-exchange': x.name },
    el('td', {}, x.name), el('td', {}, x.topic), el('td', {}, x.rates.captured), el('td', {}, x.rates.refused),
    el('td', {}, x.rates.dropped), el('td', {}, Math.round(x.ring_fill * 100) + ' %'), el('td', {}, x.writer_queue),
    el('td', {}, x.files), el('td', {}, bytes(x.disk_bytes)), el('td', {}, bytes(x.wal_bytes)),
    el('td', {}, time(x.oldest_ts)), el('td', {}, time(x.newest_ts))));
}
