"""The words of the grammar, per language: part names, units, format words, note openers.

Data, not rules: the grammar (formats.py, quantities.py, reader.py) builds its patterns from
these lists with `words`, so a language or a spelling is added here, not in a regular
expression. A space in an entry matches any run of spaces or a hyphen ("warm up" reads "Warm-up",
"warmup" needs its own entry). Movement names are not here: they are the shared vocabulary
(`spotter/domain/movement_vocabulary.toml`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

Words = Mapping[str, tuple[str, ...]] | tuple[str, ...]

PARTS = {
    "en": (
        "warm up", "warmup", "lift", "lifting", "strength", "skill", "conditioning", "metcon",
        "wod", "optional", "accessory", "accessories", "cool down", "cooldown", "mobility",
        "gymnastics", "weightlifting", "olympic lifting", "successory", "finisher", "core",
        "engine", "bonus", "extra credit", "part a", "part b", "part c", "part d", "part e",
    ),
    "he": (
        "חימום", "כוח", "מטקון", "טכניקה", "אופציונלי", "שחרור", "מוביליטי", "עזר", "סיום",
        "בונוס", "אימון כוח", "ג'ימנסטיקס", "הרמת משקולות",
    ),
    "ru": (
        "разминка", "силовая", "силовой блок", "сила", "техника", "комплекс", "метабол",
        "метаболка", "кондиция", "заминка", "гимнастика", "тяжёлая атлетика", "тяжелая атлетика",
        "дополнительно", "аксессуары", "подсобка", "бонус", "финишер", "основная часть",
        "растяжка", "мобильность", "меткон", "вод",
    ),
}  # fmt: skip
OPTIONAL = {
    "en": ("optional", "bonus", "extra credit"),
    "he": ("אופציונלי", "בונוס", "רשות"),
    "ru": ("дополнительно", "опционально", "бонус", "по желанию"),
}
# Lines about the workout, not in it: rest, scaling, standards, advice.
NOTE_OPENERS = {
    "en": (
        "note", "notes", "rest", "wear", "switch", "scale", "scaled", "scales", "scaling", "sub",
        "subs", "substitute", "substitutes", "modification", "modifications", "modify",
        "modified", "beginner", "beginners", "intermediate", "masters", "advanced", "rx",
        "rx+", "women", "men", "wearing", "partition", "in teams", "barbell", "weight",
        "weights", "load", "loads", "goal", "focus", "stimulus", "coach", "coaches", "tip",
        "tips", "cue", "cues", "post", "compare", "intent", "score", "scoring",
    ),
    "he": (
        "הערה", "הערות", "מנוחה", "דגש", "דגשים", "מטרה", "שימו", "נשים", "גברים", "מותאם",
        "התאמות", "משקל", "מטרת", "תוצאה", "ניקוד", "מתחלפים", "מחליפים", "להחליף", "החלפה",
        "לחלק", "מחלקים", "טיפ", "שימו לב",
    ),
    "ru": (
        "примечание", "заметка", "отдых", "масштабирование", "скейл", "цель", "стимул",
        "женщины", "мужчины", "новички", "совет", "внимание", "вес", "веса", "замена",
        "замены", "акцент", "результат", "счёт", "меняемся", "смена", "делим", "разбить",
    ),
}  # fmt: skip
# Where the scaled standard starts on an Rx line ("Rx 43/30 kg, scaled 30/20 kg").
SCALED = {
    "en": ("scaled", "scale", "scaling", "beginner", "beginners", "modified", "intermediate"),
    "he": ("מותאם", "מתחילים", "סקייל"),
    "ru": ("скейл", "новички", "облегчённый", "облегченный"),
}
THEN = {
    "en": ("then", "and then", "followed by"),
    "he": (
        "ואז", "אחר כך", "ואחר כך", "ואחריו", "אחרי זה", "ולאחר מכן", "אח״כ", 'אח"כ', "ואח״כ",
        'ואח"כ',
    ),
    "ru": ("затем", "потом", "далее", "после этого", "а потом"),
}  # fmt: skip
# How an interval's clock is said: "(20 sec work, 10 rest)", "(20 שניות עבודה / 10 מנוחה)".
WORK_REST = {
    "en": ("work", "rest", "on", "off"),
    "he": ("עבודה", "מנוחה"),
    "ru": ("работа", "работы", "отдых", "отдыха"),
}
REST = {"en": ("rest",), "he": ("מנוחה",), "ru": ("отдых", "отдыха")}
# "1-10 ladder", "Ladder 1-10", "лесенка 1-10", "סולם 1-10": one rep more each round.
# A squat named by the bare word, which a lift reads as the back squat ("סקוואט 5x5", "присед
# 5х5"); counted in a metcon with no load ("AMRAP 12: 10 בורפי, 15 סקוואט") it is the air squat.
BARE_SQUAT = {"he": ("סקוואט",), "ru": ("присед",)}
# A jerk named by the word the lift's full name shares ("толчок": the clean and jerk); after the
# clean in a complex ("3 взятия на грудь + 1 толчок") it is the jerk.
BARE_JERK = {"ru": ("толчок", "толчка", "толчков")}
LADDER = {"en": ("ladder",), "he": ("סולם",), "ru": ("лесенка", "лестница")}
# The two halves of an on/off interval ("40 on / 20 off", "20 שניות עבודה 10 מנוחה").
WORK = {"en": ("on", "work"), "he": ("עבודה",), "ru": ("работа", "работы")}
OFF = {"en": ("off", "rest"), "he": ("מנוחה",), "ru": ("отдых", "отдыха")}
# Who does the workout, said beside its format ("Team of 2, 30 min AMRAP", "בזוגות, AMRAP 20",
# "в парах, 20 мин АМРАП"): the section's note; a number after them counts people, not rounds.
TEAMS = {
    "en": (
        "team of", "teams of", "in teams of", "in groups of", "in pairs", "in threes", "partner",
        "partners", "with a partner", "in teams",
    ),
    "he": ("בזוגות", "בשלשות", "בקבוצות של", "בזוג", "זוגות"),
    "ru": ("в парах", "парами", "командами по", "в командах по", "в паре", "в командах"),
}  # fmt: skip
FOR_TIME = {
    "en": ("for time", "rft", "f/t", "fortime", "ftime", "4time"),
    "he": ("לזמן", "על זמן"),
    "ru": ("на время", "на скорость"),
}
# "ft: 50 DU, …": for time, when it opens the line (elsewhere "ft" is feet).
FOR_TIME_OPENING = ("ft", "f.t.", "fft")
# Rounds done for quality, not a race: "3 rounds NFT", "3 sets, not for time", "לא לזמן".
NOT_FOR_TIME = {
    "en": ("nft", "rnft", "not for time", "for quality", "quality"),
    "he": ("לא לזמן", "לא על זמן", "לאיכות", "באיכות"),
    "ru": ("не на время", "на качество", "не на скорость"),
}
# Words for a group of exercises done in turn ("Superset x 4 sets:", "Circuit, 3 rounds"):
# around a count, they say rounds.
GROUPS = (
    "superset", "supersets", "super set", "circuit", "circuits", "tri-set", "triset",
    "giant set", "סופרסט", "סבב כוח", "суперсет", "круговая", "трисет",
)  # fmt: skip
# What the time left in an interval is called: "max burpees in the remaining time",
# "מקסימום ברפי בזמן שנותר", "максимум бёрпи до конца интервала".
REMAINING_TIME = {
    "en": (
        "in the remaining time", "for the remaining time", "in remaining time",
        "in the time remaining", "with the remaining time", "for the rest of the minute",
        "for the rest of the interval", "until the end of the minute", "till the end of the minute",
        "in the rest of the minute",
    ),
    "he": ("בזמן שנותר", "בשארית הזמן", "עד סוף הדקה", "בשאר הזמן", "עד סוף הזמן"),
    "ru": (
        "до конца интервала", "до конца минуты", "в оставшееся время", "оставшееся время",
        "до конца раунда",
    ),
}  # fmt: skip
AMRAP = {"en": ("amrap",), "he": ("אמרפ",), "ru": ("амрап",)}
# "as many rounds as possible in 20 minutes", "כמה שיותר סבבים ב-12 דקות", "максимум раундов за 12".
AMRAP_PHRASES = {
    "en": (
        "as many rounds as possible in", "as many reps as possible in",
        "as many rounds and reps as possible in", "max rounds in", "max reps in",
    ),
    "he": ("כמה שיותר סבבים ב", "כמה שיותר חזרות ב", "מקסימום סבבים ב"),
    "ru": (
        "максимум раундов за", "максимум повторений за", "как можно больше раундов за",
        "макс раундов за", "максимальное количество раундов за",
    ),
}  # fmt: skip
# The same after the minutes: "12 min as many rounds as possible", "12 דקות כמה שיותר סבבים".
AMRAP_AFTER = {
    "en": (
        "as many rounds as possible", "as many reps as possible", "max rounds",
        # "Then, 4 minutes of max-rep burpees", "3 min max reps double-unders"
        "of max reps", "of max rep", "of max", "max reps", "max rep",
    ),
    "he": (
        "כמה שיותר סבבים", "כמה שיותר חזרות", "מקסימום סבבים", "של מקסימום חזרות",
        "מקסימום חזרות", "של מקסימום",
    ),
    "ru": (
        "максимум раундов", "максимум повторений", "как можно больше раундов",
        "на максимум повторений", "на максимум", "максимум",
    ),
}  # fmt: skip
EVERY_MINUTE = {
    "en": ("every minute on the minute", "every minute", "on the minute", "otm"),
    "he": ("כל דקה",),
    "ru": ("каждую минуту", "в начале каждой минуты"),
}
EVERY = {"en": ("every", "each"), "he": ("כל",), "ru": ("каждые", "каждую", "каждых")}
TABATA = {"en": ("tabata",), "he": ("טבטה", "טבאטה"), "ru": ("табата",)}
CAP = {
    "en": (
        "time cap", "tc", "cap", "capped at", "cap it at", "cap at", "cap is", "time limit",
        "capped",
    ),
    "he": ("קאפ", "מגבלת זמן", "תקרת זמן", "קאפ זמן", "הגבלת זמן"),
    "ru": (
        "лимит", "кэп", "кап", "тайм кэп", "тайм кап", "тк", "лимит времени",
        "ограничение по времени", "ограничение времени",
    ),
}  # fmt: skip
DEATH_BY = {"en": ("death by",), "he": ("מוות ב",), "ru": ("смерть от",)}
# A section done before or after the workout's main part ("Buy-in: 1000m row", "Cash-out: 50
# DU", "ביי אין", "бай-ин"): its own section, its name the note.
BOOKEND = {
    "en": ("buy in", "buyin", "cash out", "cashout"),
    "he": ("ביי אין", "באי אין", "קאש אאוט", "קאש אוט"),
    "ru": ("бай ин", "байин", "кэш аут", "кеш аут", "кэшаут"),
}
BUILD_TO = {
    "en": ("build to", "build up to", "work up to", "work to", "find", "establish"),
    "he": ("לבנות ל", "לבנות עד", "עלייה ל", "בנייה ל", "בניה ל", "בנייה עד", "עלייה עד"),
    "ru": ("выйти на", "выход на", "дойти до", "набрать"),
}
# A line of a lift's marks that opens with one of these is more sets of it, after the ones
# above: "then 3x5 @ 70% of today's single", "Back-off: 2x5 @ 80%".
BACK_OFF = {
    "en": (
        "then", "and then", "followed by", "back off", "backoff", "back off sets",
        "backoff sets", "back offs", "drop set", "drop sets", "down sets", "down set",
    ),
    "he": ("ואז", "אחר כך", "אח״כ", 'אח"כ', "סטים יורדים", "ירידה"),
    "ru": ("затем", "потом", "далее", "после этого", "откатка", "отработка"),
}  # fmt: skip
# The words around marks on a line of marks only ("Start @ 60% of snatch, build", "@ 65-70% of
# today's heavy single", "(1+2+1) x 5 sets @ 75%"): a line with any other word names something.
MARK_WORDS = {
    "en": (
        "of", "sets", "set", "reps", "rep", "x", "at", "each", "across", "every", "for", "the",
        "and", "start", "starting", "begin", "beginning", "open", "opening", "build",
        "building", "up", "work", "working", "from", "to", "today's", "todays", "today",
        "day's", "top", "heavy", "heavier", "heaviest", "single", "double", "triple", "max",
        "1rm", "rm", "pr", "your", "best", "weight", "load", "moderate", "light", "lighter",
        "same", "all", "total", "tempo", "rpe", "kg", "lb", "lbs", "then", "back", "off",
        "backoff", "drop", "down", "followed", "by", "per", "around", "about", "approx",
        "that", "it", "this", "those", "weight", "add", "adding", "increase", "increasing",
        "climb", "climbing", "go", "going", "weights",
    ),
    "he": (
        "של", "סטים", "סט", "חזרות", "ב", "מ", "עד", "לעלות", "עולים", "כבד", "משקל", "היום",
        "מקסימום", "מתחילים", "להתחיל", "ואז", "אחר", "כך", "טמפו", "מה", "כל", "עבודה",
        "מוסיפים", "להוסיף", "מעלים", "להעלות",
    ),
    "ru": (
        "по", "от", "подхода", "подходов", "подход", "повторений", "повтора", "раз", "с", "до",
        "начиная", "начать", "пм", "рм", "веса", "вес", "сегодняшнего", "максимума",
        "максимум", "тяжелого", "тяжёлого", "наращивая", "темп", "затем", "потом", "на", "в",
        "рабочий", "рабочего", "рабочим", "добавляя", "прибавляя", "каждый", "каждом",
    ),
}  # fmt: skip
# The heavy set a lift is built up to, by its reps: "a heavy single", "тяжёлая тройка".
HEAVY_SETS = {
    1: (
        "single",
        "singles",
        "одиночное",
        "одиночный",
        "сингл",
        "единицу",
        "единица",
        "единичку",
        "סינגל",
        "לסינגל",
        "חזרה אחת",
    ),
    2: ("double", "doubles", "двойка", "двойку", "дабл", "דאבל", "לדאבל"),
    3: ("triple", "triples", "тройка", "тройку", "трипл", "טריפל", "לטריפל", "3 חזרות"),
}
ALTERNATING = {
    "en": ("alternating", "alt"),
    "he": ("לסירוגין",),
    "ru": ("чередуя", "попеременно", "поочерёдно"),
}
ODD = {
    "en": ("odd", "odd min", "odd mins", "odd minute", "odd minutes", "odds"),
    "he": ("אי זוגי", "אי זוגית", "דקה אי זוגית", "דקות אי זוגיות"),
    "ru": (
        "нечётные",
        "нечетные",
        "нечёт",
        "нечет",
        "нечётная минута",
        "нечётная",
        "нечетная",
        "нечетная минута",
        "нечётные минуты",
    ),
}
EVEN = {
    "en": ("even", "even min", "even mins", "even minute", "even minutes", "evens"),
    "he": ("זוגי", "זוגית", "דקה זוגית", "דקות זוגיות"),
    "ru": (
        "чётные",
        "четные",
        "чёт",
        "чет",
        "чётная минута",
        "чётная",
        "четная",
        "четная минута",
        "чётные минуты",
    ),
}
MINUTE = {"en": ("minute", "min"), "he": ("דקה",), "ru": ("минута", "мин")}

# Words a full stop follows without ending a sentence ("approx. 50", "19-cal. row", "Mr.
# Joshua", a rank in a hero's name).
ABBREVIATIONS = (
    "approx", "ca", "min", "mins", "sec", "secs", "max", "wk", "pt", "ex", "eg", "e.g", "ie",
    "i.e", "vs", "no", "rd", "rds", "mi", "cal", "cals", "etc", "incl", "alt", "mod", "mr", "mrs",
    "ms", "st", "dr", "jr", "sr", "lt", "sgt", "ssgt", "capt", "cpt", "cpl", "pvt", "pfc", "spc",
    "maj", "col", "gen", "adm", "cmdr", "mt", "ft",
)  # fmt: skip
# A percentage written as a word: "70 אחוז", "80 процентов", "75 percent".
PERCENT_WORDS = ("percent", "pct", "אחוז", "אחוזים", "процентов", "процента", "процент")
# "at" before a percentage ("at 75%", "на 75%"; Hebrew writes it on the number: "ב-75%").
AT = {"en": ("at",), "he": (), "ru": ("на", "при")}
# A strength program's words beside a lift ("strict press 3x3 @ 90% TM", "BBB 5x10 DB rows"):
# training max, boring but big, first / second set last. No part of a movement's name.
PROGRAM_WORDS = ("TM", "BBB", "FSL", "SSL", "BBS")
# Words a movement's name never ends with: what is left of "… ב-75%", "… at 80%", "… на 70%".
DANGLING = {
    # (an article too: "…, and a 200m run" in a sentence)
    "en": ("at", "of", "for", "to", "on", "in", "with", "@", "x", "×", "a", "an", "the"),
    "he": ("ב", "ל", "מ", "ו", "ה", "של", "עם", "על", "עד"),
    "ru": ("на", "в", "с", "по", "до", "от", "за", "при", "х"),
}
# A coach greeting the box or signing off ("Good morning everyone!", "See you at 6am!", "בוקר
# טוב לכולם", "Всем удачи"): a greeting is one only with whom it greets or an exclamation ("Good
# mornings 3x10" is the exercise); a sign-off opens a note.
GREETINGS = {
    "en": ("good morning", "morning", "good evening", "hey", "hi", "hello", "happy", "welcome"),
    "he": ("בוקר טוב", "ערב טוב", "היי", "שלום", "הי"),
    "ru": ("доброе утро", "добрый вечер", "привет", "всем привет", "здравствуйте"),
}
GREETED = {
    "en": (
        "team", "everyone", "everybody", "all", "guys", "folks", "friends", "athletes", "crew",
        "fam", "y'all", "yall", "people", "gang",
    ),
    "he": ("לכולם", "כולם", "צוות", "חברים", "חברות", "אלופים"),
    "ru": ("всем", "все", "команда", "ребята", "друзья", "атлеты"),
}  # fmt: skip
SIGN_OFFS = {
    "en": (
        "see you", "see ya", "have fun", "good luck", "enjoy", "let's go", "lets go",
        "let's get it", "happy training", "go get it",
    ),
    "he": ("נתראה", "בהצלחה", "תהנו", "יאללה"),
    "ru": ("увидимся", "удачи", "до встречи", "всем удачи", "вперёд", "поехали"),
}  # fmt: skip
# What a coach tells the athlete to do before the movement ("then do 3 sets of 10 DB rows",
# "בצעו 10 ברפיז", "выполните 10 бёрпи"): no part of its name.
IMPERATIVES = {
    "en": ("do", "perform", "complete", "finish", "hit", "then do"),
    "he": ("לבצע", "בצעו", "תבצעו", "עשו", "לעשות"),
    "ru": ("выполнить", "выполните", "сделать", "сделайте", "делаем", "выполняем"),
}
# When a paired movement is done ("superset w/ strict pull-ups x max between sets"): no part
# of its name.
BETWEEN_SETS = {
    "en": (
        "between sets", "between each set", "b/w sets", "each set", "every set", "per set",
        "after each set", "between rounds", "in between",
    ),
    "he": ("בין סטים", "בין הסטים", "בכל סט", "אחרי כל סט"),
    "ru": ("между подходами", "в каждом подходе", "после каждого подхода"),
}  # fmt: skip

# Units. The first word of each entry's tuple is how the unit is written out ("kg").
LOAD_UNITS = {
    "kg": (
        "kg",
        "kgs",
        "kilo",
        "kilos",
        "kilogram",
        "kilograms",
        'ק"ג',
        "ק״ג",
        "קג",
        "קילו",
        "кг",
        "килограмм",
    ),
    "lb": ("lb", "lbs", "pound", "pounds", "#", "фунтов"),
    "pood": ("pood", "poods", "pd", "пуд", "пуда", "пудов"),
}
DISTANCE_UNITS = {
    "m": (
        "m",
        "meter",
        "meters",
        "metre",
        "metres",
        "מטר",
        "מ׳",
        "מ'",
        "м",
        "метр",
        "метров",
        "метра",
    ),
    "km": ("km", "k", "kilometer", "kilometers", 'ק"מ', "ק״מ", "км"),
    "mi": ("mi", "mile", "miles", "мили", "миля", "милю", "מייל", "מיילים"),
    "ft": ("ft", "feet", "foot", "футов"),
    "yd": ("yd", "yds", "yard", "yards"),
}
HEIGHT_UNITS = {
    "in": ('"', "”", "in", "inch", "inches", "אינץ'"),
    "cm": ("cm", 'ס"מ', "ס״מ", "см"),
}
CALORIES = (
    "cal",
    "cals",
    "calorie",
    "calories",
    "קלוריות",
    "קלוריה",
    "קאל",
    "קאלוריות",
    "קל׳",
    "קל'",
    "קל",
    "кал",
    "калорий",
    "калории",
    "калория",
    "ккал",
)
SECONDS = (
    "sec", "secs", "second", "seconds", "s", "שניות", "שנ׳", "שנ'", "שנ", "сек", "секунд",
    "секунды", "с",
)  # fmt: skip
MINUTES = (
    "min",
    "mins",
    "minute",
    "minutes",
    "דקות",
    "דק׳",
    "דק'",
    "דק",
    "דקה",
    "мин",
    "минут",
    "минуты",
    "минуту",
    "минута",
)
REPS = (
    "rep", "reps", "חזרות", "חזרה", "повторений", "повторения", "повторение", "повтора", "повтор",
    "повт", "раз", "раза",
)  # fmt: skip
SETS = ("set", "sets", "סטים", "סט", "подхода", "подходов", "подход", "сета", "сетов")
ROUNDS = (
    "round",
    "rounds",
    "rds",
    "rd",
    "rnds",
    "rnd",
    "rft",
    "rnft",
    "סבבים",
    "סבב",
    "раунд",
    "раунда",
    "раундов",
    "круг",
    "круга",
    "кругов",
)
# "Repeat 4x", "3 times", "3 פעמים", "3 раза": the lines below, that many times.
REPEAT = {"en": ("repeat", "do"), "he": ("חזרו", "לחזור"), "ru": ("повторить", "повторяем")}
TIMES_WORDS = ("times", "x", "rounds", "פעמים", "раза", "раз")
# How long a clock runs: "every minute for 12 minutes", "כל דקה במשך 12 דקות", "в течение".
FOR_DURATION = {
    "en": ("for", "x", "×", ","),
    "he": ("במשך", "למשך", "ל"),
    "ru": ("на", "в течение", "в течении"),
}
# "x" in "5x3": Latin, the multiplication sign, Cyrillic "х", "*".
TIMES = "[xX×хХ*]"
# Who a load is for: "♀ 65 lb ♂ 95 lb", "M 22.5 kg / W 15 kg", "мужчины 60 кг".
# What a standard says between the sex and its load ("Men use 225 lb", "נשים עם 35 ק"ג",
# "женщины — 40 кг" needs none).
SEX_VERBS = (
    "use", "uses", "using", "do", "go", "lift", "with", "should use", "משתמשים ב", "משתמשות ב",
    "עם", "используют", "берут", "с",
)  # fmt: skip
MALE = ("♂", "m", "men", "man", "male", "guys", "גברים", "גבר", "мужчины", "муж", "м")
FEMALE = ("♀", "w", "f", "women", "woman", "female", "girls", "נשים", "אישה", "женщины", "жен", "ж")
# How the count of one side is said: "5 each side", "10/leg", "на каждую ногу".
PER_SIDE = (
    "each side", "per side", "each arm", "per arm", "each leg", "per leg", "e/s", "/side",
    "/arm", "/leg", "a side", "an arm", "a leg",
    "לכל צד", "לכל רגל", "לכל יד", "כל צד", "לצד",
    "на каждую сторону", "на каждую ногу", "на каждую руку", "на сторону", "на ногу", "на руку",
    "каждой ногой", "каждой рукой", "כל רגל", "כל יד",
)  # fmt: skip
# "each" said alone after a count ("DB lunges 3x10 each", "SA row 3x12 ea"): per side only on
# a movement done one side at a time (these words in its name); "Deadlift and bench, 5x5 each"
# is each lift.
EACH = ("each", "ea", "каждой", "каждую", "כל אחד", "לכל אחד")
ONE_SIDED = (
    "single arm", "single leg", "one arm", "one leg", "sa", "sl", "unilateral", "alternating",
    "alt", "lunge", "lunges", "split squat", "bulgarian", "pistol", "pistols", "step up",
    "step ups", "side plank", "cossack", "get up", "get ups", "windmill", "suitcase", "db row",
    "db rows", "dumbbell row", "dumbbell rows", "kb row", "kb rows", "db snatch", "kb snatch",
    "מכרע", "מכרעים", "לאנג'", "בולגרי", "פיסטול", "יד אחת", "רגל אחת", "חד צדדי", "סטפ אפ",
    "выпад", "выпады", "выпадов", "болгарск", "пистолет", "пистолетик", "одной рукой",
    "одной ногой", "на одной ноге", "зашагивания", "степ ап",
)  # fmt: skip
# A pause inside the rep ("(3 sec pause)", "2-second pause at the bottom", "пауза 3 сек",
# "עצירה 2 שניות"): how the rep is done, a note, not a hold of that length.
PAUSE = ("pause", "paused", "pauses", "пауза", "паузой", "паузы", "עצירה", "השהייה", "פאוז")
# A sentence that opens with these names one movement, then says how it goes on: "Start with 5
# burpees and do 5 burpees at the top of every minute", "Finish with a 1 mile run".
OPENS_WITH = {
    "en": (
        "start with", "starting with", "begin with", "beginning with", "open with",
        "opening with", "finish with", "finishing with", "end with", "ending with",
        "cash out with", "buy in with",
    ),
    "he": ("מתחילים עם", "מתחילים ב", "להתחיל עם", "מסיימים עם", "מסיימים ב", "לסיים עם"),
    "ru": ("начинаем с", "начать с", "начните с", "заканчиваем", "закончить", "в конце"),
}  # fmt: skip
# Before a list of movements, for as many rounds as the time left allows ("Max rounds of 1
# power clean, 2 front squats, 3 push jerks" in a slot of an every-3-minutes clock).
MAX_OF = {
    "en": (
        "max rounds of", "max reps of", "max rounds", "amrap of",
        "as many rounds as possible of", "as many reps as possible of",
        "in the remaining time", "with the remaining time", "in remaining time",
        "rest of the time", "remaining time",
    ),
    "he": ("מקסימום סבבים של", "מקסימום סבבים", "בזמן שנותר", "בשארית הזמן"),
    "ru": ("максимум раундов", "в оставшееся время", "оставшееся время"),
}  # fmt: skip
# Words that say how a lift goes, not what it is ("build each set", "heavy", "smooth"): a piece
# of a list with no count that names no movement but says one of these is advice, a note.
ADVICE = {
    "en": (
        "build", "building", "build up", "increase", "increasing", "heavy", "heavier",
        "heaviest", "light", "lighter", "moderate", "easy", "hard", "fast", "smooth", "steady",
        "pace", "quality", "technique", "focus", "across", "each set", "every set", "same weight",
        "add weight", "climb", "climbing", "unbroken", "touch and go", "controlled",
    ),
    "he": ("לעלות", "לבנות", "כבד", "קל", "בינוני", "טכניקה", "קצב", "איכות", "בשליטה"),
    "ru": ("наращивая", "наращивать", "тяжело", "легко", "средне", "техника", "качество"),
}  # fmt: skip
# Nouns a count may be said in, after the name: "24 walking lunge steps", "10 jumps".
COUNT_NOUNS = (
    "steps", "step", "reps", "rep", "times", "repetitions", "צעדים", "חזרות", "шагов", "шага",
    "повторений", "раз",
)  # fmt: skip
# Words that say how a movement is counted, not what it is ("Accumulate 2 min L-sit").
COUNTING = (
    "accumulate", "accumulated", "perform", "approx", "approximately", "about", "around",
    "накопить", "суммарно", "примерно", "около", "לצבור", "מצטבר", "בערך",
)  # fmt: skip
# Counts written as words, for format lines ("Five rounds for time of:").
NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
    "שני": 2, "שלושה": 3, "ארבעה": 4, "חמישה": 5, "שישה": 6, "שבעה": 7, "שמונה": 8, "עשרה": 10,
    "два": 2, "три": 3, "четыре": 4, "пять": 5, "шесть": 6, "семь": 7, "восемь": 8, "десять": 10,
}  # fmt: skip


def each(table: Words) -> list[str]:
    """Every entry of a table (of all its languages), longest first."""
    entries = table if isinstance(table, tuple) else [w for ws in table.values() for w in ws]
    return sorted(set(entries), key=len, reverse=True)


def words(table: Words) -> str:
    """A regular-expression alternation of the table's entries, longest first.

    A space matches spaces or a hyphen; an entry ending in a letter must end at a word's end
    (the caller's pattern adds that where it needs it).
    """
    out = []
    for entry in each(table):
        pieces = [re.escape(piece) for piece in re.split(r"[\s-]+", entry)]
        out.append(r"[\s-]*".join(pieces))
    return "(?:" + "|".join(out) + ")"


def units(table: Mapping[str, tuple[str, ...]]) -> tuple[str, dict[str, str]]:
    """An alternation of every spelling of the table's units, and spelling -> unit."""
    spelled = {
        spelling.lower(): unit for unit, spellings in table.items() for spelling in spellings
    }
    return words(tuple(spelled)), spelled


# The implement a quantity is for, by the word after it ("35-lb dumbbells", "20-in box").
IMPLEMENTS = {
    "dumbbell": (
        "dumbbell", "dumbbells", "db", "dbs", "משקולות", "משקולת", "гантели", "гантель",
        "гантелями", "гантелей",
    ),
    "kettlebell": (
        "kettlebell", "kettlebells", "kb", "kbs", "bell", "bells", "קטלבל", "гиря", "гири",
        "гирей", "гирю",
    ),
    "medicine ball": (
        "ball", "target", "med ball", "medicine ball", "wall ball", "wb", "כדור", "мяч", "медбол",
    ),
    "box": ("box", "קופסה", "тумба", "тумбу", "тумбы"),
    "barbell": ("barbell", "bar", "bb", "מוט", "штанга", "штангу", "штанги", "гриф"),
    "vest": (
        "vest", "weight vest", "weighted vest", "אפוד", "ווסט", "жилет", "жилете", "жилетом",
    ),
    "plate": ("plate", "plates", "צלחת", "блин", "блином"),
    "sandbag": ("sandbag", "sand bag", "שק חול", "мешок", "мешком"),
}  # fmt: skip
# Implements a movement has a variant for ("lunges with dumbbells" is the DB lunge): a name
# keeps "with …" when one of these follows.
VARIANT_IMPLEMENTS = (
    "dumbbell", "dumbbells", "db", "dbs", "kettlebell", "kettlebells", "kb", "kbs", "barbell",
    "med ball", "medicine ball", "sandbag",
)  # fmt: skip
# What a standards line opens with ("Barbell: 155/105 lb", "KB: 24/16", "Вес: 60/40 кг").
# A table's header row ("Lift<TAB>Sets<TAB>Reps<TAB>%"): what each column holds.
COLUMNS = {
    "name": (
        "lift", "exercise", "movement", "exercises", "movements", "תרגיל", "תרגילים",
        "упражнение", "упражнения", "движение",
    ),
    "sets": ("sets", "set", "סטים", "подходы", "подходов", "подход"),
    "reps": ("reps", "rep", "repetitions", "חזרות", "повторения", "повторы", "повт"),
    "percent": (
        "%", "percent", "% 1rm", "%1rm", "intensity", "אחוז", "אחוזים", "процент", "% от пм",
    ),
    "load": ("load", "weight", "kg", "lb", "lbs", "משקל", "вес", "кг"),
    "tempo": ("tempo", "טמפו", "темп"),
    "rest": ("rest", "מנוחה", "отдых"),
}  # fmt: skip
LOAD_LABELS = {
    "en": (
        "barbell", "bar", "weight", "weights", "load", "loads", "rx", "kb", "db", "kettlebell",
        "kettlebells", "dumbbell", "dumbbells",
    ),
    "he": ("משקל", "מוט", "משקולות", "קטלבל"),
    "ru": ("вес", "веса", "штанга", "гиря", "гантели"),
}  # fmt: skip
# A piece that names only its implement or side says how the movement before it is done
# ("30 kettlebell swings, 2 pood", "25 box jumps, 30 inch box", "20 sec side plank / side").
EQUIPMENT_NAMES = (
    "box", "plate", "ball", "bar", "barbell", "dumbbell", "dumbbells", "kettlebell",
    "kettlebells", "vest", "target", "ruck", "sandbag", "bell", "bells", "side", "each side",
    "per side", "each", "arm", "each arm", "leg", "each leg", "rx", "scaled", "тумба", "гиря",
    "гантели", "жилет", "קופסה", "אפוד",
)  # fmt: skip
BODYWEIGHT = ("bw", "bodyweight", "body weight", "משקל גוף", "собственный вес", "св")
