// Small DOM helpers. Values are always set as text, never parsed as HTML.

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name === 'class') {
      node.className = value;
    } else if (name.startsWith('on')) {
      node.addEventListener(name.substring(2), value);
    } else {
      node.setAttribute(name, value);
    }
  }
  for (const child of children) {
    node.append(child instanceof Node ? child : document.createTextNode(child == null ? '' : String(child)));
  }
  return node;
}

export function rows(tbody, items, toRow) {
  tbody.replaceChildren(...items.map(toRow));
}

export function $(id) {
  return document.getElementById(id);
}

export function time(ms) {
  return ms == null || ms < 0 ? '-' : new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

export function bytes(n) {
  if (n == null) {
    return '-';
  }
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return (i === 0 ? n : n.toFixed(1)) + ' ' + units[i];
}

export function duration(seconds) {
  const d = Math.floor(seconds / 86400);
  const h = Math.floor(seconds % 86400 / 3600);
  const m = Math.floor(seconds % 3600 / 60);
  return (d ? d + 'd ' : '') + h + 'h ' + m + 'm ' + (seconds % 60) + 's';
}
