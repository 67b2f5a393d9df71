// Clients: search by client id, user or address; kick (MQTT 5 clients get DISCONNECT 0x98).
import { api } from './api.js';
import { $, el, rows, time } from './dom.js';

let wired = false;

function wire() {
  if (wired) {
    return;
  }
  wired = true;
  $('clients-search').addEventListener('input', () => refresh().catch(e => $('error').textContent = e.message));
}

async function find(text) {
  const limit = 'limit=200';
  if (!text) {
    return (await api('/api/v4/clients?' + limit)).data;
  }
  const q = encodeURIComponent(text);
  // One text searches all three fields: the union of three filtered lists, without repeats.
  const lists = await Promise.all(['like_clientid', 'like_username', 'like_ip_address']
    .map(p => api('/api/v4/clients?' + limit + '&' + p + '=' + q)));
  const seen = new Map();
  lists.forEach(l => l.data.forEach(c => seen.set(c.client_id, c)));
  return [...seen.values()].sort((a, b) => a.client_id.localeCompare(b.client_id));
}

async function kick(clientId) {
  if (!confirm('Disconnect client ' + clientId + '?')) {
    return;
  }
  await api('/api/v4/clients/' + encodeURIComponent(clientId), { method: 'DELETE' });
  setTimeout(() => refresh().catch(e => $('error').textContent = e.message), 300);
}

export async function refresh() {
  wire();
  const clients = await find($('clients-search').value.trim());
  rows($('clients-rows'), clients, c => el('tr', { 'data-client': c.client_id },
    el('td', {}, c.client_id), el('td', {}, c.username ?? ''), el('td', {}, c.ip_address ?? ''),
    el('td', {}, c.conn_state), el('td', {}, c.proto_ver ?? ''), el('td', {}, c.keepalive ?? ''),
    el('td', {}, c.subscriptions_cnt), el('td', {}, c.mqueue_len),
    el('td', {}, c.connected_at ? time(Date.parse(c.connected_at)) : ''),
    el('td', {}, c.conn_state === 'connected'
      ? el('button', { class: 'kick', type: 'button', onclick: () => kick(c.client_id).catch(e => $('error').textContent = e.message) }, 'Kick')
      : '')));
  $('clients-meta').textContent = clients.length + ' shown';
}
