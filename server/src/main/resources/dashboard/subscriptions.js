// Subscriptions and the topic tree of subscriptions and retained messages.
import { api } from './api.js';
import { $, el, rows } from './dom.js';

// Which branches the user opened or closed, by path, kept across refreshes. $SYS starts closed.
const toggled = new Map();

function tree(nodes) {
  return nodes.map(n => {
    const label = [el('span', {}, n.topic === '' ? '(empty level)' : n.topic)];
    if (n.subscribers) {
      label.push(el('span', { class: 'subs' }, ' ' + n.subscribers + ' subscription(s)'));
    }
    if (n.retained) {
      label.push(el('span', { class: 'retained' }, ' retained (' + n.retained_bytes + ' bytes)'));
    }
    if (!n.children.length) {
      return el('li', { 'data-path': n.path }, ...label);
    }
    const branch = el('details', {}, el('summary', {}, ...label), el('ul', {}, ...tree(n.children)));
    branch.open = toggled.has(n.path) ? toggled.get(n.path) : !n.path.startsWith('$');
    branch.addEventListener('toggle', () => toggled.set(n.path, branch.open));
    return el('li', { 'data-path': n.path }, branch);
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
