//! What the centre answers, in Russian too: one catalogue of English
//! message templates and their Russian, and the layer that adds the
//! Russian to an answer when the page asking is Russian.
//!
//! A template names the varying parts `{1}`, `{2}`…; the Russian uses the
//! same numbers in any order. A part that is itself a message of the
//! catalogue is said in Russian too (`"{1}: the name cannot change"` with
//! `{1}` = `"Anna" has bowled`), a quoted name `"Anna"` becomes «Anna», and
//! anything else (names, numbers, ids) is kept as it is. A part is data
//! or a message of the catalogue, never English prose the catalogue does
//! not have (an unknown message stays English rather than half said),
//! except a part written `{n+}` in the English: an error from elsewhere
//! (a parser's, the disk's), kept as it is. Adding a message is one line
//! in [`SAY`].
//!
//! The layer ([`layer`]) reads `Accept-Language`; for a request whose
//! first language is Russian, a JSON answer that refuses (4xx, 5xx) or
//! relays lanes' answers (`/api/push`, `/api/pushes`, `/api/hold`), and
//! an import's answer (`/api/entries/import`), gains,
//! beside every `"error"` text, an `"error_ru"`, beside every problem's
//! `"message"`, a `"message_ru"`, and beside the lines a change asks the
//! chief judge to confirm (`"confirm"`) or an import's dry run would move
//! (`"moves"`), a `"confirm_ru"` or `"moves_ru"`; the English
//! fields stay for other tools
//! (docs/centre.md, "Languages").

use axum::body::Body;
use axum::http::{HeaderMap, Request, header};
use axum::middleware::Next;
use axum::response::Response;
use serde_json::Value;

/// English template → Russian. One line a message.
#[rustfmt::skip]
pub const SAY: &[(&str, &str)] = &[
    // The login (src/web/login.rs, src/web/limit.rs).
    ("wrong PIN", "неверный ПИН"),
    ("a judge must log in", "нужно войти как судья"),
    ("the chief judge must log in", "нужно войти как главный судья"),
    ("a PIN is {1} to {2} digits", "ПИН — от {1} до {2} цифр"),
    ("a login is {1}: {2+}", "вход — это {1}: {2}"),
    ("busy checking other PINs: try again in a moment", "проверяются другие ПИН: попробуйте через мгновение"),
    ("cannot tell whose PIN it is", "не удаётся определить, чей это ПИН"),
    ("cannot make a session now", "сейчас не удаётся открыть сеанс"),
    ("cannot tell who is asking", "не удаётся определить, кто спрашивает"),
    ("too many tries: wait a moment", "слишком много попыток: подождите немного"),
    ("request refused", "запрос отклонён"),
    ("too many wrong PINs from this device: it may try again in {1} s; another judge's device can still log in ({2} ends it)", "слишком много неверных ПИН с этого устройства: попробовать снова можно через {1} с; с устройства другого судьи войти можно ({2} снимает блокировку)"),
    ("too many wrong PINs from several devices: logins from devices that have not logged in lately are locked for {1} s ({2} ends it)", "слишком много неверных ПИН с нескольких устройств: вход с устройств, которые давно не входили, закрыт на {1} с ({2} снимает блокировку)"),
    ("`lanecall unlock --config /etc/lanecall/centre.toml` (the config the centre runs with) on the centre's computer", "`lanecall unlock --config /etc/lanecall/centre.toml` (с настройками, с которыми запущен центр) на компьютере центра"),
    ("`lanecall unlock` on the lane's computer", "`lanecall unlock` на компьютере дорожки"),
    // The API's own (src/centre/api.rs, api/*.rs).
    ("no such route", "нет такого адреса"),
    ("no such file: {1}", "нет такого файла: {1}"),
    ("there is no programme", "программы нет"),
    ("the programme has no block {1}", "в программе нет блока {1}"),
    ("send JSON (Content-Type: application/json)", "отправьте JSON (Content-Type: application/json)"),
    ("not JSON: {1+}", "не JSON: {1}"),
    ("cancel a held push: {1} (no \"lane\": every lane it holds for)", "отмена отложенной отправки: {1} (без \"lane\" — для всех дорожек)"),
    ("lane: {1} is not a lane number (1 to {2})", "дорожка: {1} — не номер дорожки (от 1 до {2})"),
    ("a hold is {1}", "остановка — это {1}"),
    ("block: 1 to 64 characters", "блок: от 1 до 64 знаков"),
    ("a push is {1}, or {2} with a programme", "отправка — это {1} или {2}, если есть программа"),
    ("lanes: 1 to {1} lanes", "дорожки: от 1 до {1}"),
    ("lanes: {1} is not a lane number (1 to {2})", "дорожки: {1} — не номер дорожки (от 1 до {2})"),
    ("lanes.{1}: a list of bowlers", "дорожка {1}: нужен список участников"),
    ("lanes.{1}: {2} is withdrawn from the competition", "дорожка {1}: {2} снят(а) с соревнований"),
    ("no programme: the centre's config has no `programme`, and the entries are the programme's", "нет программы: в настройках центра не указан `programme`, а участники — часть программы"),
    ("name the entry: {1}", "укажите участника: {1}"),
    ("an entry is {1}", "участник — это {1}"),
    ("name the block: {1}", "укажите блок: {1}"),
    ("name the winner: {1}", "укажите победителя: {1}"),
    ("{1}: write {2}=1 or {2}=0", "{1}: пишите {2}=1 или {2}=0"),
    ("block {1} has no lane assignments yet", "блоку {1} ещё не назначены дорожки"),
    ("every bowler of block {1} is withdrawn", "все участники блока {1} сняты"),
    // Held pushes (src/centre/commands.rs, CancelRefused).
    ("there is no push {1} (the last {2} are kept: GET /api/pushes)", "нет отправки {1} (хранятся последние {2}: GET /api/pushes)"),
    ("push {1} sent nothing to lane {2}", "отправка {1} ничего не посылала на дорожку {2}"),
    ("push {1} is not held for lane {2}: it was sent already, or cancelled", "отправка {1} не ждёт дорожку {2}: она уже ушла или отменена"),
    ("push {1} is held for no lane: it was sent already, or cancelled", "отправка {1} не ждёт ни одну дорожку: она уже ушла или отменена"),
    // Entries (src/centre/entries.rs, entries/*.rs).
    ("{1} has bowled", "{1} уже выступал(а)"),
    ("{1} is on lane {2} of block {3}", "{1} стоит на дорожке {2} блока {3}"),
    ("{1} is in team {2} of event {3}", "{1} входит в команду {2} вида {3}"),
    ("{1} won a roll-off in the finals", "{1} выиграл(а) переигровку в финале"),
    ("{1}: the name cannot change", "{1}: имя изменить нельзя"),
    ("{1}: withdraw the entry instead of deleting it", "{1}: снимите участника вместо удаления"),
    ("{1}: it cannot be left out (mark it withdrawn instead)", "{1}: его нельзя убрать из списка (отметьте «снят»)"),
    ("there is no entry {1}", "нет участника {1}"),
    ("{1} is another entry: a name is one bowler's (withdraw or delete that entry first)", "{1} — другой участник: имя принадлежит одному участнику (сначала снимите или удалите ту запись)"),
    ("{1} is not a column; the columns are {2} (or in Russian: {3})", "{1} — не столбец; столбцы: {3} (или по-английски: {2})"),
    ("the competition has {1} entries: no more fit", "в соревновании уже {1} участников: больше нельзя"),
    ("{1} entries: at most {2}", "участников: {1}, а можно не больше {2}"),
    ("there is no import to undo: only the last change, if it was an import, can be undone", "нечего отменять: отменить можно только последнее изменение, если это была загрузка CSV"),
    ("not saved: {1+}", "не сохранено: {1}"),
    ("{1} is not a class: B1, B2 or B3", "{1} — не класс: B1, B2 или B3"),
    ("{1} is not M or F", "{1} — не М и не Ж"),
    ("{1} is not a handicap (0 to {2} pins a game)", "{1} — не гандикап (от 0 до {2} кеглей за игру)"),
    ("{1} is not a whole number of pins", "{1} — не целое число кеглей"),
    ("{1}: write yes, or leave it empty", "{1}: напишите yes или оставьте пустым"),
    ("the region is empty: write the bowler's region", "регион пуст: укажите регион участника"),
    ("{1} is entered twice: on row {2} too", "{1} записан(а) дважды: ещё в строке {2}"),
    ("{1} is entered twice", "{1} записан(а) дважды"),
    ("{1} is beyond the last column", "{1} — за последним столбцом"),
    ("column {1} is twice", "столбец {1} указан дважды"),
    ("the first row has {1} columns: the columns are {2}", "в первой строке столбцов: {1}; столбцы: {2}"),
    ("there is no column {1}", "нет столбца {1}"),
    ("more than {1} entries: a competition has at most {1}", "больше {1} участников: в соревновании их не больше {1}"),
    ("the file is empty: its first row names the columns ({1})", "файл пуст: в первой строке — названия столбцов ({1})"),
    ("the file is {1} bytes: at most {2} (1 MiB)", "файл {1} байт: не больше {2} (1 МиБ)"),
    ("… and {1} more problems, not listed: mend these and import again", "… и ещё ошибок: {1} (не показаны): исправьте эти и загрузите снова"),
    // Names (crates/lanecall-core/src/names.rs), `{1}` one of the words below.
    ("the {1} is empty", "{1}: пусто"),
    ("the {1} is longer than {2} characters", "{1}: длиннее {2} знаков"),
    ("the {1} holds a control character ({2})", "{1}: управляющий символ ({2})"),
    ("the {1} holds an invisible formatting character ({2}): type it with letters, digits, spaces and punctuation only", "{1}: невидимый символ форматирования ({2}): пишите только буквами, цифрами, пробелами и знаками препинания"),
    ("a name starting with \"centre:\" is the centre's: choose another", "имя, начинающееся с \"centre:\", принадлежит центру: выберите другое"),
    ("name", "имя"),
    ("region", "регион"),
    ("team", "команда"),
    ("team's name", "название команды"),
    ("block id", "номер блока"),
    // A block's lanes and roll-offs (src/centre/entries/blocks.rs).
    ("give the block at least one lane with a bowler", "назначьте блоку хотя бы одну дорожку с участником"),
    ("at most {1} lanes", "не больше {1} дорожек"),
    ("{1} is not a lane number", "{1} — не номер дорожки"),
    ("lane {1} is given twice", "дорожка {1} указана дважды"),
    ("lane {1}: 1 to {2} bowlers, not {3}", "дорожка {1}: от 1 до {2} участников, а не {3}"),
    ("lane {1}: {2} is not an entry", "дорожка {1}: {2} — не участник"),
    ("lane {1}: {2} is withdrawn from the competition", "дорожка {1}: {2} снят(а) с соревнований"),
    ("{1} is on two lanes of block {2}", "{1} стоит на двух дорожках блока {2}"),
    ("{1} is in no team of event {2}", "{1} не входит ни в одну команду вида {2}"),
    ("team {1} has {2} of its {3} members in this block", "в этом блоке {2} из {3} участников команды {1}"),
    ("block {1} has games bowled: its lanes stay as they were", "в блоке {1} уже сыграны игры: дорожки остаются прежними"),
    ("block {1}'s step-ladder match is not a tie waiting for a roll-off", "встреча лесенки блока {1} — не ничья, ждущая переигровки"),
    ("{1} did not bowl the tied match: {2} or {3}", "{1} не играл(а) во встрече вничью: {2} или {3}"),
    // The programme's checks (src/centre/programme/check.rs) and its edits.
    ("{1} is not \"role: name\"", "{1} — не \"должность: имя\""),
    ("the id is empty", "номер пуст"),
    ("event {1} is defined twice", "вид {1} описан дважды"),
    ("a singles event has no teams", "в одиночном разряде нет команд"),
    ("a team event needs its teams", "командному виду нужны команды"),
    ("team {1} has {2} member(s); a {3} team has {4}", "в команде {1} участников: {2}; в команде вида {3} их {4}"),
    ("{1} is not an entry", "{1} — не участник"),
    ("{1} is already in team {2} of this event", "{1} уже в команде {2} этого вида"),
    ("{1} is twice in the team", "{1} дважды в команде"),
    ("block {1} is defined twice", "блок {1} описан дважды"),
    ("there is no event {1}", "нет вида {1}"),
    ("{1} games: a block has 1 to {2}", "игр: {1}; в блоке их от 1 до {2}"),
    ("day {1}: days count from 1", "день {1}: дни считаются с 1"),
    ("lane {1} is written twice", "дорожка {1} записана дважды"),
    ("{1} is already on lane {2} in this block", "{1} уже на дорожке {2} этого блока"),
    ("{1} is twice on lane {2}", "{1} дважды на дорожке {2}"),
    ("category {1} has finals twice", "у категории {1} финал указан дважды"),
    ("there is no block {1}", "нет блока {1}"),
    ("block {1} is in the finals twice", "блок {1} дважды в финале"),
    ("block {1} is not in a singles event", "блок {1} не в одиночном разряде"),
    ("the step-ladder has 2 blocks, not {1}", "в лесенке 2 блока, а не {1}"),
    ("write it as text", "напишите текстом"),
    ("{1} is not a whole number", "{1} — не целое число"),
    ("a list of names", "нужен список имён"),
    ("each team's name and its members", "название каждой команды и её участники"),
    ("it is empty", "пусто"),
    ("a change is {1}", "изменение — это {1}"),
    ("op {1}: add, edit or delete", "op {1}: add, edit или delete"),
    ("there is already {1}: edit it", "{1} уже есть: измените его"),
    ("the programme has {1} events: no more fit", "видов в программе уже {1}: больше нельзя"),
    ("the programme has {1} blocks: no more fit", "блоков в программе уже {1}: больше нельзя"),
    ("the programme has {1} finals: no more fit", "финалов в программе уже {1}: больше нельзя"),
    ("{1} names are corrected already: no more are kept", "исправленных имён уже {1}: больше не сохраняется"),
    ("there is no {1}", "нет: {1}"),
    ("{1}: {2} cannot be deleted", "{1}: {2} удалить нельзя"),
    ("{1}: its {2} cannot change", "{1}: {2} изменить нельзя"),
    ("{1} is not a table", "{1} — не таблица"),
    ("event {1}", "вид {1}"),
    ("block {1}", "блок {1}"),
    ("the finals of {1}", "финал {1}"),
    ("there is no the finals of {1}", "нет финала {1}"),
    ("block {1} has games bowled", "в блоке {1} уже сыграны игры"),
    ("block {1} was pushed to the lanes", "блок {1} уже отправлен на дорожки"),
    ("{1}: its event cannot change", "{1}: вид изменить нельзя"),
    ("{1}: its games cannot change", "{1}: число игр изменить нельзя"),
    ("{1}: its event and games cannot change", "{1}: вид и число игр изменить нельзя"),
    ("{1}: its kind cannot change", "{1}: тип вида изменить нельзя"),
    ("{1}: its teams cannot change", "{1}: команды изменить нельзя"),
    ("{1}: its kind and teams cannot change", "{1}: тип вида и команды изменить нельзя"),
    ("{1}: its round_robin cannot change", "{1}: круговой турнир изменить нельзя"),
    ("{1}: its step_ladder cannot change", "{1}: степ-лэддер изменить нельзя"),
    ("{1}: its round_robin and step_ladder cannot change", "{1}: круговой турнир и степ-лэддер изменить нельзя"),
    ("{1}: change an event, a block or the finals", "{1}: изменить можно вид, блок или финал"),
    ("there is no category {1}: a category is B1, B2 or B3, with -M or -F when its men and women are apart", "нет категории {1}: категория — это B1, B2 или B3, с -M или -F, когда мужчины и женщины отдельно"),
    ("there is no category {1}: class {2} has {3} bowlers, more than {4}, so its men and women are two categories, {2}-M and {2}-F; these finals need their category changed, or the class {4} bowlers or fewer", "нет категории {1}: в классе {2} участников {3}, больше {4}, поэтому мужчины и женщины — две категории, {2}-M и {2}-F; у этого финала нужно изменить категорию или оставить в классе не больше {4} участников"),
    ("a round robin of the top {1}: it takes the top 3 to {2} (the step-ladder needs 3)", "круговой турнир из {1} лучших: в него выходят от 3 до {2} лучших (степ-лэддеру нужны 3)"),
    ("no bowler in the category yet", "в категории ещё нет участников"),
    ("no bowler in the category", "в категории нет участников"),
    // A programme problem named by its key (`finals[1].category: …`), the key kept.
    ("{1}[{2}].{3}: {4}", "{1}[{2}].{3}: {4}"),
    ("{1}[{2}]: {3}", "{1}[{2}]: {3}"),
    // The programme file's parser (serde's words).
    ("{1}: missing field {2}", "{1}: нет поля {2}"),
    // A bowled bowler's class, sex and handicap, and a corrected name
    // (src/centre/entries/guard.rs, rename.rs, api/entries.rs).
    ("{1} has bowled: only the chief judge changes the class, sex or handicap of a bowler who has bowled", "{1} уже выступал(а): класс, пол и гандикап выступавшего участника меняет только главный судья"),
    ("{1}: the finals of {2} have started (block {3} has games): the class, sex and handicap stay as they are", "{1}: финал {2} начался (в блоке {3} есть игры): класс, пол и гандикап остаются прежними"),
    ("this changes the results of a bowler who has bowled; repeat it with \"confirm\": true to make it:", "это меняет результаты выступавшего участника; повторите с \"confirm\": true, чтобы это сделать:"),
    ("{1}: class {2} → {3}", "{1}: класс {2} → {3}"),
    ("{1}: handicap {2} → {3}", "{1}: гандикап {2} → {3}"),
    ("{1}: sex M → F", "{1}: пол М → Ж"),
    ("{1}: class {2} → {3}, sex M → F", "{1}: класс {2} → {3}, пол М → Ж"),
    ("{1}: sex M → F, handicap {2} → {3}", "{1}: пол М → Ж, гандикап {2} → {3}"),
    ("{1}: class {2} → {3}, sex M → F, handicap {4} → {5}", "{1}: класс {2} → {3}, пол М → Ж, гандикап {4} → {5}"),
    ("{1}: sex F → M", "{1}: пол Ж → М"),
    ("{1}: class {2} → {3}, sex F → M", "{1}: класс {2} → {3}, пол Ж → М"),
    ("{1}: sex F → M, handicap {2} → {3}", "{1}: пол Ж → М, гандикап {2} → {3}"),
    ("{1}: class {2} → {3}, sex F → M, handicap {4} → {5}", "{1}: класс {2} → {3}, пол Ж → М, гандикап {4} → {5}"),
    ("{1}: class {2} → {3}, handicap {4} → {5}", "{1}: класс {2} → {3}, гандикап {4} → {5}"),
    ("{1} leaves category {2} and joins {3}", "{1} переходит из категории {2} в категорию {3}"),
    ("{1} leaves category none and joins {2}", "{1} входит в категорию {2}"),
    ("{1} leaves category {2} and joins none", "{1} выходит из категории {2}"),
    ("{1}: {2} → {3}", "{1}: {2} → {3}"),
    ("place {1} in {2}", "{1}-е место в {2}"),
    ("unranked in {1}", "без места в {1}"),
    ("in no category", "вне категорий"),
    ("{1} is seed {2} of the finals of {3}", "{1}: номер посева {2} в финале {3}"),
    ("the categories {1} become {2}", "категории {1} становятся такими: {2}"),
    ("the finals of {1}: seeds {2} become {3}", "финал {1}: посев {2} становится таким: {3}"),
    ("{1} is the name {2} bowled under before it was corrected: its games are {2}'s", "{1} — имя, под которым {2} выступал(а) до исправления: это игры {2}"),
    ("{1} is the name {2} bowled under before it was corrected: enter it as {2}", "{1} — имя, под которым {2} выступал(а) до исправления: вводите {2}"),
    ("{1} is not a parameter: mode, dry_run, undo or confirm", "{1} — не параметр: mode, dry_run, undo или confirm"),
    // Lanes added and removed on the page (src/centre/api/lanes.rs, lanes.rs).
    ("name the lane: {1}", "укажите дорожку: {1}"),
    ("{1} is not a lane number (1 to {2})", "{1} — не номер дорожки (от 1 до {2})"),
    ("lane {1} is already a lane of the competition", "дорожка {1} уже есть в соревновании"),
    ("the competition has {1} lanes: no more fit", "в соревновании уже {1} дорожек: больше нельзя"),
    ("lane {1} is not a lane of the competition", "дорожки {1} нет в соревновании"),
    ("lane {1} has bowlers in block(s) {2}: move them to another lane first", "на дорожке {1} стоят участники блоков {2}: сначала переставьте их на другую дорожку"),
    ("lane {1} has connected: its card and its journals stay", "дорожка {1} уже подключалась: её карточка и журналы остаются"),
    // A block's life: pushed again, finals early, games voided
    // (src/centre/api/push.rs, early.rs, void.rs, status.rs, void.rs).
    ("block {1} has begun: {2}; the lanes would bowl it again and those games would not count. To push it again, send \"again\": true and a \"reason\"", "блок {1} уже начат: {2}; дорожки сыграли бы его снова, и эти игры не были бы засчитаны. Чтобы отправить его снова, пришлите \"again\": true и \"reason\" (причину)"),
    ("lane {1} finished it (end_block)", "дорожка {1} его закончила (end_block)"),
    ("lane {1} bowled all {2} game(s)", "дорожка {1} сыграла все игры блока ({2})"),
    ("lane {1} is bowling game {2} of {3}", "дорожка {1} играет игру {2} из {3}"),
    ("reason: say why the block is pushed again (up to {1} characters)", "причина: скажите, почему блок отправляется снова (до {1} знаков)"),
    ("the preliminaries of finals block {1} are not complete: {2}. The chief judge may confirm it early with \"early\": true and a \"reason\"", "предварительные игры финального блока {1} не закончены: {2}. Главный судья может подтвердить его досрочно: \"early\": true и \"reason\" (причина)"),
    ("{1} has bowled {2} of {3} game(s)", "{1}: сыграно игр {2} из {3}"),
    ("block {1} has no lanes yet", "блоку {1} ещё не назначены дорожки"),
    ("only the chief judge (logged in with the shared PIN) may confirm finals before the preliminaries are complete", "подтвердить финал до конца предварительных игр может только главный судья (вход по общему ПИН)"),
    ("reason: say why the finals are confirmed before the preliminaries are complete (up to {1} characters)", "причина: скажите, почему финал подтверждается до конца предварительных игр (до {1} знаков)"),
    ("cannot record in {1}: {2+}", "не удаётся записать в {1}: {2}"),
    ("draw: {1}", "жеребьёвка: {1}"),
    ("only the chief judge (logged in with the shared PIN) may void a game", "аннулировать игру может только главный судья (вход по общему ПИН)"),
    ("void a game: {1}", "аннулировать игру: {1}"),
    ("reason: say why the game does not count (up to {1} characters)", "причина: скажите, почему игра не засчитывается (до {1} знаков)"),
    ("lane {1} has no journal of block {2}", "у дорожки {1} нет журнала блока {2}"),
    ("lane {1} has no game {2} of {3} in {4}", "у дорожки {1} нет игры {2} участника {3} в журнале {4}"),
    ("that game is voided already (by {1})", "эта игра уже аннулирована (кем: {1})"),
    ("{1} games are voided already: no more are kept", "аннулировано уже {1} игр: больше не хранится"),
    ("cannot keep the voided game: {1+}", "не удаётся сохранить аннулированную игру: {1}"),
    // A lane's answer to a push or a hold (crates/lanecall-core/src/lane/refusal.rs).
    ("refused", "отказ"),
    ("a lineup has 1 to {1} bowlers, not {2}", "в составе от 1 до {1} участников, а не {2}"),
    ("a bowler's name is empty", "имя участника пустое"),
    ("two bowlers named {1} on the lane", "на дорожке два участника с именем {1}"),
    ("the bowler \"{1}\": {2}", "участник «{1}»: {2}"),
    ("{1}'s team: {2}", "команда участника {1}: {2}"),
    ("{1}'s handicap is {2}: a handicap is 0 to {3} pins a game, as in the programme", "гандикап участника {1} — {2}: гандикап от 0 до {3} кеглей за игру, как в программе"),
    ("block {1} is open: the lane order is locked (substitute between games, or end the block)", "блок {1} идёт: порядок на дорожке закрыт (замена между играми или после конца блока)"),
    ("block {1} has already started", "блок {1} уже начат"),
    ("no block is open", "ни один блок не идёт"),
    ("the lineup's block \"{1}\": {2}", "блок состава «{1}»: {2}"),
    ("the lineup's block \"\": {1}", "блок состава без номера: {1}"),
    ("the lineup's block has 1 to {1} games, not {2}", "в блоке состава от 1 до {1} игр, а не {2}"),
    ("{1} has {2} game(s) in the centre's programme: start it with {2}, not {3} (other games only by the chief judge, or the centre pushes the block again)", "{1}: в программе центра игр — {2}: начинайте с {2}, а не с {3} (другое число игр — только главный судья, или центр отправит блок снова)"),
    ("the block", "блок"),
    ("the lane is already held", "дорожка уже остановлена"),
    ("the lane is not held", "дорожка не остановлена"),
];

/// Words for a problem's place: `field` as the page's form names it.
#[rustfmt::skip]
const FIELDS: &[(&str, &str)] = &[
    ("name", "участник"),
    ("class", "класс"),
    ("sex", "пол"),
    ("region", "регион"),
    ("team", "команда"),
    ("handicap", "гандикап"),
    ("withdrawn", "снят"),
];

/// The longest message said in Russian: anything longer stays English.
const MAX_SAID: usize = 4096;

/// The most places the parts of one answer's messages are tried at (each
/// a step of [`fit`]) before the rest is left in English: some hundred
/// milliseconds at most, whatever text a lane's answers carry. A real
/// message takes a few thousand; the longest list said (70 bowlers' missing
/// games, 3.9 KB) some 12 million.
const STEPS: u32 = 20_000_000;

thread_local! {
    /// The steps left to the message being said.
    static LEFT: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Takes one step of the message's budget; `false` once it is spent.
fn step() -> bool {
    LEFT.with(|left| {
        let n = left.get();
        left.set(n.saturating_sub(1));
        n > 0
    })
}

/// `text` in Russian, line by line; `None` when a line is not in the
/// catalogue, or the message is too long or too costly to match.
pub fn russian(text: &str) -> Option<String> {
    LEFT.with(|left| left.set(STEPS));
    said(text)
}

/// [`russian`] within the steps left to the answer being said.
fn said(text: &str) -> Option<String> {
    if text.len() > MAX_SAID {
        return None;
    }
    let lines: Option<Vec<String>> = text.lines().map(|l| line(l, 0)).collect();
    let spent = LEFT.with(|left| left.get()) == 0;
    lines.filter(|_| !spent).map(|l| l.join("\n"))
}

/// One message in Russian: the catalogue's template that matches it with
/// the most fixed text, its parts said in Russian where they can be.
fn line(text: &str, depth: u8) -> Option<String> {
    if depth > 4 {
        return None;
    }
    let mut best: Option<(usize, &str, Vec<&str>)> = None;
    for (en, ru) in SAY {
        if let Some(parts) = matches(en, text) {
            let free = free_parts(en);
            let data = |(i, p): (usize, &&str)| {
                free[i + 1] || !prose(p) || line(p, depth + 1).is_some() || list(p, depth).is_some()
            };
            if !parts.iter().enumerate().all(data) {
                continue;
            }
            let fixed = text.len() - parts.iter().map(|p| p.len()).sum::<usize>();
            if best.as_ref().is_none_or(|(f, ..)| fixed > *f) {
                best = Some((fixed, ru, parts));
            }
        }
    }
    let (_, ru, parts) = best?;
    let mut out = String::with_capacity(ru.len() + text.len());
    let mut rest = ru;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let tail = &rest[open..];
        match placeholder(tail) {
            Some((n, len)) => {
                let part = parts.get(n - 1).copied().unwrap_or("");
                out.push_str(&part_said(part, depth));
                rest = &tail[len..];
            }
            None => {
                out.push('{');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    Some(out)
}

/// A part of a message: a message itself, a quoted name, or as it is.
fn part_said(part: &str, depth: u8) -> String {
    if let Some(said) = line(part, depth + 1).or_else(|| list(part, depth)) {
        return said;
    }
    match part.strip_prefix('"').and_then(|p| p.strip_suffix('"')) {
        Some(inner) if !inner.contains('"') => format!("«{inner}»"),
        _ => part.to_owned(),
    }
}

/// A part that lists messages of the catalogue (`"; "` or `", "` between
/// them, as a block's lanes or the bowlers yet to bowl are listed), each
/// said in Russian; `None` if one is not in the catalogue.
fn list(part: &str, depth: u8) -> Option<String> {
    ["; ", ", "].iter().find_map(|sep| {
        if !part.contains(sep) {
            return None;
        }
        let items: Option<Vec<String>> = part.split(sep).map(|i| line(i, depth + 1)).collect();
        items.map(|v| v.join(sep))
    })
}

/// `{n}` (or, in the English, `{n+}`) at the start of `s`: `n` and the
/// placeholder's length.
fn placeholder(s: &str) -> Option<(usize, usize)> {
    let b = s.as_bytes();
    if b.len() < 3 || b[0] != b'{' || !b[1].is_ascii_digit() || b[1] == b'0' {
        return None;
    }
    let n = usize::from(b[1] - b'0');
    match (b[2], b.get(3)) {
        (b'}', _) => Some((n, 3)),
        (b'+', Some(b'}')) => Some((n, 4)),
        _ => None,
    }
}

/// Which of template `en`'s parts may be any text (`{n+}`: an error from
/// elsewhere); the others are data (a name, a number, an id) or a
/// message of the catalogue.
fn free_parts(en: &str) -> [bool; 10] {
    let mut free = [false; 10];
    for (i, _) in en.match_indices('{') {
        if let Some((n, 4)) = en.get(i..).and_then(placeholder) {
            free[n] = true;
        }
    }
    free
}

/// Whether `part` reads as English prose (two lowercase words in a row,
/// outside quotes, backticks and braces): a message the catalogue does
/// not have, which a template's data part must not take.
fn prose(part: &str) -> bool {
    let mut bare = String::with_capacity(part.len());
    let mut closing: Option<char> = None;
    for ch in part.chars() {
        match closing {
            Some(c) if ch == c => closing = None,
            Some(_) => {}
            None => match ch {
                '"' => closing = Some('"'),
                '`' => closing = Some('`'),
                '{' => closing = Some('}'),
                _ => bare.push(ch),
            },
        }
    }
    let word = |w: &str| w.len() >= 2 && w.bytes().all(|b| b.is_ascii_lowercase());
    let words: Vec<&str> = bare.split(' ').collect();
    words.windows(2).any(|w| word(w[0]) && word(w[1]))
}

/// The parts of `text` in the places of template `en`'s `{n}`s, in their
/// numbers' order (a number used twice must match the same text).
fn matches<'t>(en: &str, text: &'t str) -> Option<Vec<&'t str>> {
    let mut pieces = Vec::new(); // (literal before, placeholder number)
    let mut rest = en;
    let mut lit = String::new();
    while let Some(open) = rest.find('{') {
        lit.push_str(&rest[..open]);
        let tail = &rest[open..];
        match placeholder(tail) {
            Some((n, len)) => {
                pieces.push((std::mem::take(&mut lit), n));
                rest = &tail[len..];
            }
            None => {
                lit.push('{');
                rest = &tail[1..];
            }
        }
    }
    lit.push_str(rest);
    let mut found: Vec<Option<&'t str>> = vec![None; 9];
    fit(&pieces, &lit, text, &mut found).then(|| {
        let n = found.iter().rposition(Option::is_some).map_or(0, |i| i + 1);
        found[..n].iter().map(|p| p.unwrap_or("")).collect()
    })
}

/// Whether `text` is `pieces` (literal then a non-empty part, each) then
/// `last`, the parts written to `found`.
fn fit<'t>(
    pieces: &[(String, usize)],
    last: &str,
    text: &'t str,
    found: &mut Vec<Option<&'t str>>,
) -> bool {
    let Some(((lit, n), more)) = pieces.split_first() else {
        return text == last;
    };
    let Some(after) = text.strip_prefix(lit.as_str()) else {
        return false;
    };
    let next_lit = more.first().map_or(last, |(l, _)| l.as_str());
    // Each place the next literal could start, after at least one char.
    let starts = after
        .char_indices()
        .skip(1)
        .map(|(i, _)| i)
        .chain(std::iter::once(after.len()));
    for end in starts {
        if !step() {
            return false;
        }
        let rest = &after[end..];
        if !rest.starts_with(next_lit) {
            continue;
        }
        let part = &after[..end];
        let slot = n - 1;
        let before = found[slot];
        if before.is_some_and(|b| b != part) {
            continue;
        }
        found[slot] = Some(part);
        if fit(more, last, rest, found) {
            return true;
        }
        found[slot] = before;
    }
    false
}

/// Whether the request's first language is Russian (`Accept-Language: ru`).
pub fn wants_russian(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(',').next())
        .is_some_and(|first| {
            let tag = first.split(';').next().unwrap_or("").trim();
            tag.eq_ignore_ascii_case("ru") || tag.to_ascii_lowercase().starts_with("ru-")
        })
}

/// The largest answer read to add its Russian: the pushes' list is the
/// largest said.
const MAX_ANSWER: usize = 2 * 1024 * 1024;

/// Adds Russian beside the English of a refusal or a lane's answer when
/// the request asked in Russian; every other answer passes as it is.
pub async fn layer(req: Request<Body>, next: Next) -> Response {
    let ru = wants_russian(req.headers());
    let relays = matches!(
        req.uri().path(),
        "/api/push" | "/api/pushes" | "/api/hold" | "/api/pushes/cancel" | "/api/entries/import"
    );
    let res = next.run(req).await;
    let json = res
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    let refusal = res.status().is_client_error() || res.status().is_server_error();
    if !ru || !json || !(refusal || relays) {
        return res;
    }
    let (mut parts, body) = res.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_ANSWER).await else {
        parts.status = axum::http::StatusCode::INTERNAL_SERVER_ERROR;
        parts.headers.remove(header::CONTENT_LENGTH);
        return Response::from_parts(parts, Body::from("{\"error\":\"answer too large\"}"));
    };
    let Ok(mut v) = serde_json::from_slice::<Value>(&bytes) else {
        return Response::from_parts(parts, Body::from(bytes));
    };
    add_russian(&mut v);
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(v.to_string()))
}

/// Beside every `error` text an `error_ru`, beside every problem's
/// `message` a `message_ru`, where the catalogue says them. An answer with
/// problems says its `error_ru` from them: each problem's place and its
/// message, then how many more there are.
pub fn add_russian(v: &mut Value) {
    LEFT.with(|left| left.set(STEPS));
    add(v);
}

fn add(v: &mut Value) {
    match v {
        Value::Array(list) => list.iter_mut().for_each(add),
        Value::Object(o) => {
            if let Some(Value::Array(problems)) = o.get_mut("problems") {
                for p in problems.iter_mut() {
                    if let Some(ru) = p.get("message").and_then(Value::as_str).and_then(said) {
                        p["message_ru"] = Value::from(ru);
                    }
                }
            }
            let from_problems = problems_russian(o);
            let error_ru = match o.get("error").and_then(Value::as_str) {
                Some(_) if from_problems.is_some() => from_problems,
                Some(e) => said(e),
                None => None,
            };
            if let Some(ru) = error_ru {
                o.insert("error_ru".into(), Value::from(ru));
            }
            for (en, ru) in [("confirm", "confirm_ru"), ("moves", "moves_ru")] {
                if let Some(said) = lines_russian(o, en) {
                    o.insert(ru.into(), said);
                }
            }
            for (k, child) in o.iter_mut() {
                if k != "problems" {
                    add(child);
                }
            }
        }
        _ => {}
    }
}

/// The lines of field `key` in Russian, each as the catalogue says it or,
/// if it does not, as it is: what a 409 asks the chief judge to confirm
/// (`confirm`, src/centre/api/entries.rs) and what an import's dry run
/// says it would move (`moves`).
fn lines_russian(o: &serde_json::Map<String, Value>, key: &str) -> Option<Value> {
    let lines = o.get(key)?.as_array()?;
    let said = lines.iter().map(|l| {
        let en = l.as_str()?;
        Some(Value::from(said(en).unwrap_or_else(|| en.to_owned())))
    });
    said.collect::<Option<Vec<Value>>>().map(Value::Array)
}

/// An answer's problems in Russian, one a line, as `Issue`'s Display
/// places them; `None` if one is not in the catalogue.
fn problems_russian(o: &serde_json::Map<String, Value>) -> Option<String> {
    let problems = o.get("problems")?.as_array()?;
    if problems.is_empty() {
        return None;
    }
    let mut lines = Vec::with_capacity(problems.len() + 1);
    for p in problems {
        let message = p.get("message_ru")?.as_str()?;
        let mut place = Vec::new();
        if let Some(n) = p.get("entry").and_then(Value::as_u64) {
            place.push(format!("участник {n}"));
        }
        if let Some(r) = p.get("row").and_then(Value::as_u64) {
            place.push(format!("строка {r}"));
        }
        let field = p.get("field").and_then(Value::as_str).map(|f| {
            FIELDS
                .iter()
                .find(|(en, _)| *en == f)
                .map_or(f, |(_, ru)| ru)
        });
        match (p.get("column").and_then(Value::as_u64), field) {
            (Some(c), Some(f)) => place.push(format!("столбец {c} ({f})")),
            (Some(c), None) => place.push(format!("столбец {c}")),
            (None, Some(f)) => place.push(f.to_owned()),
            (None, None) => {}
        }
        lines.push(if place.is_empty() {
            message.to_owned()
        } else {
            format!("{}: {message}", place.join(", "))
        });
    }
    if let Some(more) = o
        .get("more_problems")
        .and_then(Value::as_u64)
        .filter(|m| *m > 0)
    {
        lines.push(said(&format!(
            "… and {more} more problems, not listed: mend these and import again"
        ))?);
    }
    Some(lines.join("\n"))
}

#[cfg(test)]
#[path = "say_tests.rs"]
mod tests;
