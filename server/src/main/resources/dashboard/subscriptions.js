// Subscriptions and the topic tree of subscriptions and retained messages.
import { api } from './api.js';
import { $, el, rows } from './dom.js';

function tree(nodes) {
  return nodes.map(n => {
    const label = el('span', {}, n.topic === '' ? '(empty level)' : n.topic);
    const notes = [];
    if (n.subscribers) {
      notes.push(el('span', { class: 'subs' }, ' ' + n.subscribers + ' subscription(s)'));
    }
    if (n.retained) {
      notes.push(el('span', { class: 'retained' }, ' retained (' + n.retained_bytes + ' bytes)'));
    }
    const item = el('li', { 'data-path': n.path }, label, ...notes);
    if (n.children.length) {
      item.append(el('ul', {}, ...tree(n.children)));
    }
    return item;
  });
}

export async function refresh() {
  const subs = await api('/api/v4/subscriptions?limit=500');
  rows($('subscriptions-rows'), subs.data, s => el('tr', {},
    el('td', {}, s.clientid), el('td', {}, s.topic), el('td', {}, s.qos), el('td', {}, s.no_local),
    el('td', {}, s.retain_as_published)));
  $('subscriptions-meta').textContent = subs.meta.count + ' subscriptions' + (subs.meta.hasnext ? ', first 500 shown' : '');
  const topics = await api('/api/v4/topic-tree');
  $('topic-tree').replaceChildren(...tree(topics.data.children));
}
