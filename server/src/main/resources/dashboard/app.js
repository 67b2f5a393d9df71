// The dashboard: one page at a time, chosen by the URL's hash, refreshed every two seconds by
// polling the API. A 401 shows the log-in form.
import { Unauthorized, logIn, logOut, user } from './api.js';
import { $ } from './dom.js';
import * as overview from './overview.js';
import * as clients from './clients.js';
import * as subscriptions from './subscriptions.js';
import * as exchanges from './exchanges.js';
import * as explorer from './explorer.js';
import * as bridges from './bridges.js';

const PAGES = { overview, clients, subscriptions, exchanges, explorer, bridges };
const POLL_MS = 2000;
let timer = null;

function current() {
  const name = location.hash.replace('#', '');
  return PAGES[name] ? name : 'overview';
}

function show(name) {
  $('login').hidden = true;
  document.querySelectorAll('.page').forEach(p => p.hidden = p.id !== 'page-' + name);
  document.querySelectorAll('#nav a').forEach(a => a.classList.toggle('active', a.dataset.page === name));
  $('user').textContent = user() ? 'user ' + user() : '';
  $('logout').hidden = !user();
}

function showLogin() {
  clearTimeout(timer);
  document.querySelectorAll('.page').forEach(p => p.hidden = true);
  $('login').hidden = false;
  $('login-user').focus();
}

async function tick() {
  clearTimeout(timer);
  const name = current();
  try {
    await PAGES[name].refresh();
    $('error').textContent = '';
    document.body.dataset.ready = name;
  } catch (e) {
    if (e instanceof Unauthorized) {
      if (user()) {
        $('login-error').textContent = 'Wrong user name or password.';
        logOut();
      }
      showLogin();
      return;
    }
    $('error').textContent = e.message;
  }
  timer = setTimeout(tick, POLL_MS);
}

function open() {
  show(current());
  tick();
}

$('login-form').addEventListener('submit', e => {
  e.preventDefault();
  logIn($('login-user').value, $('login-password').value);
  $('login-error').textContent = '';
  open();
});
$('logout').addEventListener('click', () => {
  logOut();
  showLogin();
});
window.addEventListener('hashchange', open);
open();
