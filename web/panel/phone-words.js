// The words of the scoreboard (/board) and the bowler's phone (/me), in
// Russian and English. The language is the one i18n.js has set.

import { lang } from './i18n.js';

const ru = {
  lane: (n) => 'Дорожка ' + n,
  board: 'Табло',
  gameOf: (g, n) => 'Игра ' + g + (n ? ' из ' + n : ''),
  blockN: (n) => 'Блок ' + n,
  scores: 'Счёт',
  bowler: 'Игрок',
  frameN: (n) => 'Фрейм ' + n,
  total: 'Итого',
  up: 'Бросает',
  upBall: (f, b) => 'Фрейм ' + f + ', бросок ' + b,
  upLabel: 'бросает сейчас',
  nextBall: 'следующий бросок',
  nobodyUp: 'Сейчас никто не бросает',
  standing: 'Стоят кегли',
  standingList: (l) => (l.length === 10 ? 'Стоят все 10' : l.length ? 'Стоят: ' + l.join(', ') : 'Все кегли сбиты'),
  hold: (by, why) => 'ДОРОЖКА ОСТАНОВЛЕНА' + (why ? ': ' + why : '') + (by ? ' (' + by + ')' : ''),
  bfAdjust: (n) => 'ПОПРАВЛЯЕТ ПОВЯЗКУ: ' + n,
  bfRecheck: (n) => 'ЖДЁМ ПРОВЕРКИ ПОВЯЗКИ: ' + n,
  journalStop: 'СЧЁТ ОСТАНОВЛЕН: журнал не записывается',
  connLost: 'СВЯЗЬ ПОТЕРЯНА — переподключение…',
  connecting: 'Подключение…',
  noBowlers: 'Состав ещё не задан.',
  langSwitch: 'English',
  langSwitchLabel: 'Switch to English',
  themeLight: 'Светлая тема',
  themeDark: 'Тёмная тема',
  // The phone.
  me: 'Мои броски',
  whoAreYou: 'Кто вы?',
  pickHelp: 'Выберите своё имя. Телефон будет читать вслух только результат ваших бросков.',
  noLineup: 'Состав ещё не задан. Подождите, пока его введёт судья.',
  notInLineup: (n) => n + ': этого имени нет в составе дорожки.',
  lastBall: 'Ваш последний бросок',
  liveHint: 'Здесь появится и прозвучит результат вашего следующего броска.',
  myScore: 'Мой счёт',
  scoreText: (f, total) => 'Фрейм ' + f + ', ' + total,
  scoreNone: 'Ещё нет подсчитанных фреймов',
  scoreOld: ' (нет связи: счёт мог измениться)',
  notMe: 'Это не я',
  yourTurn: (f, b) => 'Ваша очередь: фрейм ' + f + ', бросок ' + b,
  notYourTurn: 'Сейчас бросаете не вы',
};

const en = {
  lane: (n) => 'Lane ' + n,
  board: 'Scoreboard',
  gameOf: (g, n) => 'Game ' + g + (n ? ' of ' + n : ''),
  blockN: (n) => 'Block ' + n,
  scores: 'Scores',
  bowler: 'Bowler',
  frameN: (n) => 'Frame ' + n,
  total: 'Total',
  up: 'Up',
  upBall: (f, b) => 'Frame ' + f + ', ball ' + b,
  upLabel: 'up now',
  nextBall: 'next ball',
  nobodyUp: 'Nobody is up',
  standing: 'Pins standing',
  standingList: (l) => (l.length === 10 ? 'All ten standing' : l.length ? 'Standing: ' + l.join(', ') : 'All pins down'),
  hold: (by, why) => 'LANE HELD' + (why ? ': ' + why : '') + (by ? ' (' + by + ')' : ''),
  bfAdjust: (n) => 'BLINDFOLD ADJUSTMENT: ' + n,
  bfRecheck: (n) => 'BLINDFOLD CHECK AWAITED: ' + n,
  journalStop: 'SCORING STOPPED: the journal cannot be written',
  connLost: 'CONNECTION LOST — reconnecting…',
  connecting: 'Connecting…',
  noBowlers: 'No lane order yet.',
  langSwitch: 'Русский',
  langSwitchLabel: 'Переключить на русский',
  themeLight: 'Light theme',
  themeDark: 'Dark theme',
  me: 'My balls',
  whoAreYou: 'Who are you?',
  pickHelp: 'Pick your name. The phone reads out the result of your own balls only.',
  noLineup: 'No lane order yet. Wait for the judge to enter it.',
  notInLineup: (n) => n + ' is not in the lane order.',
  lastBall: 'Your last ball',
  liveHint: 'The result of your next ball appears here and is read out.',
  myScore: 'My score',
  scoreText: (f, total) => 'Frame ' + f + ', ' + total,
  scoreNone: 'No frame scored yet',
  scoreOld: ' (connection lost: the score may have changed)',
  notMe: 'Not me',
  yourTurn: (f, b) => 'Your turn: frame ' + f + ', ball ' + b,
  notYourTurn: 'Not your turn',
};

const WORDS = { ru, en };

// A word of this module in the current language (English if missing).
export function pt(key, ...args) {
  const dict = WORDS[lang()] || ru;
  const v = key in dict ? dict[key] : en[key];
  if (v === undefined) return key;
  return typeof v === 'function' ? v(...args) : v;
}
