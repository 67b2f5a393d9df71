// Bridges: state and backlog of each MQTT and Kafka bridge.
import { api } from './api.js';
import { $, el, rows, bytes } from './dom.js';

export async function refresh() {
  const body = await api('/api/v4/bridges');
  rows($('bridges-rows'), body.data, b => el('tr', { 'data-bridge': b.name },
    el('td', {}, b.name), el('td', {}, b.type), el('td', {}, b.remote), el('td', {}, b.state),
    el('td', {}, b.backlog), el('td', {}, bytes(b.backlog_bytes)), el('td', {}, b.window),
    el('td', {}, b.last_error ?? '')));
  $('bridges-meta').textContent = body.data.length ? '' : 'No bridges are configured (bridges.mqtt.<name>, bridges.kafka.<name>).';
}
