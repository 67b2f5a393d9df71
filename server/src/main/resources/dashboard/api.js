// Calls to the HTTP API: every request carries the credentials given at log-in (kept for this tab
// only) and the header that keeps the browser's own login prompt away.
const KEY = 'sluice.credentials';

export class Unauthorized extends Error {}

export function logIn(user, password) {
  const bytes = new TextEncoder().encode(user + ':' + password);
  sessionStorage.setItem(KEY, btoa(String.fromCharCode(...bytes)));
  sessionStorage.setItem(KEY + '.user', user);
}

export function logOut() {
  sessionStorage.removeItem(KEY);
  sessionStorage.removeItem(KEY + '.user');
}

export function user() {
  return sessionStorage.getItem(KEY + '.user');
}

function headers() {
  const h = { 'X-Requested-With': 'sluice-dashboard' };
  const basic = sessionStorage.getItem(KEY);
  if (basic) {
    h.Authorization = 'Basic ' + basic;
  }
  return h;
}

// The answer's body ({code: 0, data, meta}); throws Unauthorized on 401 and an Error with the
// server's message on any other refusal.
export async function api(path, options = {}) {
  const response = await fetch(path, { ...options, headers: { ...headers(), ...(options.headers || {}) } });
  if (response.status === 401) {
    throw new Unauthorized('log in');
  }
  const body = await response.json();
  if (body.code !== 0) {
    throw new Error(body.message || ('error ' + body.code));
  }
  return body;
}

// Fetches a download with the credentials and saves it under fileName.
export async function download(path, fileName) {
  const response = await fetch(path, { headers: headers() });
  if (response.status === 401) {
    throw new Unauthorized('log in');
  }
  if (!response.ok) {
    const body = await response.json();
    throw new Error(body.message || ('error ' + body.code));
  }
  const url = URL.createObjectURL(await response.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
