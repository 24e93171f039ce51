// The scoreboard for a TV: every lane's bowlers and series in large type,
// after the standings when there are some. Polls every two seconds.
import { t, getLang } from './i18n.js';
import { h, api, bowlers, categoryTitle } from './common.js';

async function poll() {
  const board = document.getElementById('board');
  document.getElementById('title').textContent = t('title');
  try {
    const [lanes, standings] = await Promise.all([api('/api/lanes'), api('/api/standings')]);
    const cats = (standings.status === 200 && standings.body && standings.body.categories) || [];
    // The standings first (each category's top ten), then every lane.
    board.replaceChildren(
      ...cats.map((c) => h('section', {}, h('h2', { text: categoryTitle(c, getLang()) }),
        h('ol', {}, (c.entries || []).slice(0, 10).map((e) => h('li', { text: e.name + ' — ' + e.total }))))),
      ...(lanes.body || []).map((l) => h('section', { class: l.online ? '' : 'off' },
        h('h2', { text: t('lane', l.lane) }),
        h('ol', {}, bowlers(l.state).map((b) => h('li', { text: b.name + ' — ' + b.series }))))));
  } catch (_) {
    board.replaceChildren(h('p', { text: t('pageDown') }));
  }
}
poll();
setInterval(poll, 2000);
