"""Query tokens for lexical search: what is left once the words of every request are gone.

Stopwords are articles and pronouns, the verbs people use to ask Spotter for things, calendar
words, and the entity nouns themselves ("workout", "member"): none of them names a thing.
"""

from __future__ import annotations

from spotter.search.lexical import words


def _words(text: str) -> list[str]:
    return text.split()


_EN = _words(
    """
a an the this that these those my our your his her their its it i we you he she they me us
them and or but of to for from in on at by with without into onto about as is are was were
be been am do does did have has had can could will would should shall may might must not no
please pls show list find get give tell create make add build schedule book cancel erase
delete remove post publish update change move set assign put write send invite copy
replicate apply check mark today tomorrow yesterday tonight morning afternoon evening night
week weekend month year day days next last this monday tuesday wednesday thursday friday
saturday sunday mon tue wed thu fri sat sun am pm workout workouts wod wods class classes
session sessions member members athlete athletes coach coaches program programs exercise
exercises movement movements gym box schedule
"""
)

_HE = _words(
    """
את של על עם אל מן מ ב ל ו ה זה זו זאת אלה אלו הוא היא הם הן אני אנחנו אתה את אתם אתן שלי
שלנו שלך שלו שלה שלהם לי לנו לך לו לה להם גם או אבל כי אם לא כן בבקשה רק כל תראה הראה תציג
הצג תמצא מצא תן תגיד צור תיצור הוסף תוסיף בנה תבנה קבע תקבע הזמן תזמין בטל תבטל מחק תמחק הסר
תסיר פרסם תפרסם עדכן תעדכן שנה תשנה העבר תעביר שבץ תשבץ שלח תשלח תרשום רשום הזמנה העתק
תעתיק היום מחר אתמול הערב בוקר צהריים ערב לילה שבוע סופש חודש שנה יום ימים הבא הבאה שעבר
ראשון שני שלישי רביעי חמישי שישי שבת אימון אימונים שיעור שיעורים סשן מפגש מפגשים
חבר חברה חברים מתאמן
מתאמנים מאמן מאמנים תכנית תוכנית תכניות תוכניות תרגיל תרגילים לוז לו״ז
"""
)

_RU = _words(
    """
и или но а в во на с со к ко по за из от до для без о об у при про не нет да это этот эта
эти тот та те мой моя мои наш наша наши твой ваш его её ее их я мы ты вы он она они мне нам
пожалуйста покажи показать найди найти дай создай создать добавь добавить запланируй запиши
отмени отменить удали удалить опубликуй обнови измени перенеси назначь отправь скопируй
сегодня завтра вчера вечером утром днём днем ночью неделя неделю неделе месяц год день дни
следующий следующая следующей прошлый понедельник вторник среда среду четверг пятница
пятницу суббота субботу воскресенье тренировка тренировку тренировки занятие занятия класс
сессия участник участники клиент клиенты тренер тренеры программа программы упражнение
упражнения расписание
"""
)

STOPWORDS: frozenset[str] = frozenset(_EN + _HE + _RU)


def query_tokens(text: str, *, max_tokens: int = 8) -> list[str]:
    """Distinct content words of `text`, in order, at least 2 characters. Tokens with a digit
    ("7am", "5x3", "2026") are times, dates and rep schemes: they name nothing, and as trigrams
    they would match ids and numbered labels."""
    found = words(text, STOPWORDS, max_words=len(text))
    return [w for w in found if not any(c.isdigit() for c in w)][:max_tokens]
