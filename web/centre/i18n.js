// Every string the centre's page shows, in Russian (the default) and English.
export const LANGS = ['ru', 'en'];

const ru = {
  title: 'Центр соревнований',
  tabLanes: 'Дорожки', tabStandings: 'Таблица', tabBlock: 'Блок', tabResults: 'Протокол', tabTv: 'Табло',
  lang: 'English',
  brokerUp: 'Брокер: связь есть', brokerDown: 'Брокер: НЕТ СВЯЗИ', pageDown: 'Центр недоступен…',
  lane: (n) => 'Дорожка ' + n,
  online: 'на связи', offline: 'НЕ НА СВЯЗИ',
  up: (b, g, f, ball) => b + ' — игра ' + g + ', фрейм ' + f + ', бросок ' + ball,
  nobodyUp: 'никто не бросает',
  linkDown: 'Пинсеттер: НЕТ СВЯЗИ', fault: (s) => 'Сбой пинсеттера: ' + s,
  hold: (who, why) => 'ОСТАНОВЛЕНА' + (who ? ' — ' + who : '') + (why ? ': ' + why : ''),
  blindfold: (b) => 'Повязка: ' + b, slow: (b) => 'Медленная игра: ' + b,
  journalFailed: 'ЖУРНАЛ НЕ ПИШЕТСЯ',
  mirrorFailed: (f) => 'КОПИЯ ЖУРНАЛА НЕ ПИШЕТСЯ: ' + f.reason,
  mirror: (m) => 'Копия журнала: ' + m.lines + ' строк' + (m.gaps ? ', пропусков: ' + m.gaps : '') + (m.conflicts ? ', расхождений: ' + m.conflicts : ''),
  noLanes: 'Ни одна дорожка ещё не на связи.',
  alarm_duplicate_lane: (n) => 'ТРЕВОГА: две дорожки называют себя дорожкой ' + n,
  alarm_conflict: (n) => 'ТРЕВОГА: расхождение в журнале дорожки ' + n,
  noStandings: 'Таблицы пока нет.',
  rank: 'Место', name: 'Участник', games: 'Игры', total: 'Сумма',
  pin: 'ПИН главного судьи', login: 'Войти', logout: 'Выйти', judge: (n) => 'Главный судья: ' + n,
  blockLabel: 'Блок', lineupsLabel: 'Составы (JSON: {"7":[{"name":"…","class":"B1"}]})', push: 'Отправить составы',
  notJson: 'Составы — не JSON',
  pending: 'ждём ответа', accepted: 'принят', refused: 'отказ', no_answer: 'нет ответа',
  noResults: 'Протокола пока нет.',
  download: (x) => 'Скачать ' + x,
  blockTitle: (id, ev, g) => 'Блок ' + id + ' · ' + ev + ' · игр: ' + g,
  pushBlock: (id) => 'Отправить составы блока ' + id,
};

const en = {
  title: 'Competition centre',
  tabLanes: 'Lanes', tabStandings: 'Standings', tabBlock: 'Block', tabResults: 'Results', tabTv: 'TV',
  lang: 'Русский',
  brokerUp: 'Broker: connected', brokerDown: 'Broker: NOT CONNECTED', pageDown: 'Centre unreachable…',
  lane: (n) => 'Lane ' + n,
  online: 'online', offline: 'OFFLINE',
  up: (b, g, f, ball) => b + ' — game ' + g + ', frame ' + f + ', ball ' + ball,
  nobodyUp: 'nobody up',
  linkDown: 'Pinsetter: NO LINK', fault: (s) => 'Pinsetter fault: ' + s,
  hold: (who, why) => 'HELD' + (who ? ' — ' + who : '') + (why ? ': ' + why : ''),
  blindfold: (b) => 'Blindfold: ' + b, slow: (b) => 'Slow bowling: ' + b,
  journalFailed: 'JOURNAL NOT WRITTEN',
  mirrorFailed: (f) => 'JOURNAL COPY NOT WRITTEN: ' + f.reason,
  mirror: (m) => 'Journal copy: ' + m.lines + ' lines' + (m.gaps ? ', gaps: ' + m.gaps : '') + (m.conflicts ? ', conflicts: ' + m.conflicts : ''),
  noLanes: 'No lane has reported yet.',
  alarm_duplicate_lane: (n) => 'ALARM: two lanes say they are lane ' + n,
  alarm_conflict: (n) => 'ALARM: conflicting journal lines on lane ' + n,
  noStandings: 'No standings yet.',
  rank: 'Rank', name: 'Bowler', games: 'Games', total: 'Total',
  pin: 'Chief judge PIN', login: 'Log in', logout: 'Log out', judge: (n) => 'Chief judge: ' + n,
  blockLabel: 'Block', lineupsLabel: 'Lineups (JSON: {"7":[{"name":"…","class":"B1"}]})', push: 'Push lineups',
  notJson: 'The lineups are not JSON',
  pending: 'waiting', accepted: 'accepted', refused: 'refused', no_answer: 'no answer',
  noResults: 'No results yet.',
  download: (x) => 'Download ' + x,
  blockTitle: (id, ev, g) => 'Block ' + id + ' · ' + ev + ' · ' + g + ' games',
  pushBlock: (id) => 'Push block ' + id + "'s lineups",
};

const TABLES = { ru, en };
let lang = (localStorage.getItem('lang') || 'ru');
if (!LANGS.includes(lang)) lang = 'ru';

export function getLang() { return lang; }
export function setLang(l) { lang = l; localStorage.setItem('lang', l); document.documentElement.lang = l; }
export function t(key, ...args) {
  const v = TABLES[lang][key];
  return typeof v === 'function' ? v(...args) : (v === undefined ? key : v);
}
