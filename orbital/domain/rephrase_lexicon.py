"""The word lists behind :mod:`orbital.domain.rephrase`: data only, no logic.

Every list is general (function words, light verbs, common inflections, the abbreviations and
synonyms of everyday software and office work), never words picked from one labelled pair: the
guard is judged on asks it has not seen. Words are lowercase; :mod:`rephrase` stems them the
way it stems a text, so one entry covers every inflection.
"""

from __future__ import annotations

#: A synonym table: stemmed word sequences of the synonym groups -> the groups' keys.
Phrases = dict[tuple[str, ...], frozenset[str]]


def _words(text: str) -> list[str]:
    return text.split()


#: Function words, politeness, modals, quantifiers and the framing of a decision ("decide
#: whether", "should we"): they change the grammar of an ask, never what it asks for.
STOP_WORDS = frozenset(
    _words(
        """
        a an the this that these those it its to of in on at for from by with into onto off over
        under about as and or but so if then than too also via per up out i me my we us our you
        your he she him her they them their someone somebody anyone everyone everybody nobody
        all every each any some both either is are be been being was were am do does did done
        doing have has had having will would shall should can could may might must need needs
        needed want wants like please kindly just still yet now soon already maybe perhaps
        really actually again what which who whom whose when where why how whether let lets
        decide decided decision choose pick make makes made get gets got use uses using take
        takes took go goes going put puts set sets instead rather current currently existing new
        one ones way thing things
        """
    )
)

#: The same roles in German and Chinese (Chinese: characters, removed from a run of Han text).
STOP_WORDS_DE = frozenset(
    _words(
        """
        der die das den dem des ein eine einen einem einer eines und oder aber mit zu zum zur im
        in am an auf aus bei von vom für über nach vor ob wir ihr sie es er ich du uns unser
        unsere mich mir bitte sollen sollten sollte soll wollen möchten können kann muss müssen
        ist sind wird werden künftig ab jetzt entscheide entscheiden alle jede jeden neue neuen
        """
    )
)
STOP_CHARS_ZH = frozenset("请把将是否从到要的了吗呢吧决定给在和与")
#: "A not A" asks a yes/no question in Chinese: no negation.
ZH_QUESTION_NOT = ("要不要", "是不是", "能不能", "会不会", "可不可以", "该不该")

#: An ask that says one of these asks for the opposite of one that does not.
NEGATIONS = frozenset(
    _words(
        """
        not no never without dont don't doesnt doesn't shouldnt shouldn't wont won't nicht kein
        keine keinen nie ohne
        """
    )
)
NEGATION_CHARS_ZH = frozenset("不别勿无没")

#: File extensions after a dot: ``store.py`` and "the store module" name one thing.
EXTENSIONS = frozenset(
    _words(
        """
        py pyi js jsx ts tsx rb rs go java kt c h cpp hpp cs php sh md rst txt json yml yaml
        toml ini cfg html css sql
        """
    )
)

#: Generic nouns a rewording adds around a name ("the login endpoint", "the store module"): in
#: the later text alone they name no new object.
GENERIC_NOUNS = frozenset(
    _words(
        """
        endpoint route module file package library folder directory section page part item stuff
        area bit
        """
    )
)

#: Inflections a stemmer cannot undo.
IRREGULAR = {
    "sent": "send",
    "written": "write",
    "wrote": "write",
    "bought": "buy",
    "brought": "bring",
    "built": "build",
    "chose": "choose",
    "chosen": "choose",
    "gave": "give",
    "given": "give",
    "kept": "keep",
    "left": "leave",
    "paid": "pay",
    "ran": "run",
    "sold": "sell",
    "spent": "spend",
    "taught": "teach",
    "thought": "think",
    "told": "tell",
    "understood": "understand",
    "won": "win",
    "broke": "break",
    "broken": "break",
    "began": "begin",
    "begun": "begin",
    "drew": "draw",
    "drawn": "draw",
    "froze": "freeze",
    "frozen": "freeze",
    "hid": "hide",
    "hidden": "hide",
    "shown": "show",
}

NUMBERS = {
    **{
        word: str(value)
        for value, word in enumerate(
            _words("zero one two three four five six seven eight nine ten eleven twelve")
        )
    },
    **{"twenty": "20", "thirty": "30", "forty": "40", "fifty": "50", "hundred": "100"},
    **{
        word: str(value)
        for value, word in enumerate(
            _words("null eins zwei drei vier fünf sechs sieben acht neun zehn elf zwölf")
        )
    },
}

#: Ordinals, read as their number by the wider reading ("the third quarter" / "Q3").
ORDINALS = {
    word: str(value)
    for value, word in enumerate(
        _words("first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth"),
        start=1,
    )
}

#: Groups of words and phrases that name the same action or thing; a word may sit in several.
#: Abbreviations sit with what they abbreviate.
SYNONYMS = """
increase|raise|bump|grow|boost|go up|put up|higher|more|erhöhen|提高|增加
decrease|lower|reduce|cut|shrink|go down|less|fewer|senken|reduzieren|降低|减少
add|introduce|include|implement|create|set up|setup|install|hinzufügen|添加|增加
remove|delete|drop|get rid of|eliminate|take out|strip|entfernen|löschen|删除|移除
write|draft|compose|author|prepare|schreiben|写
copy|text|wording|content
send|give|share|forward|provide|hand over|email|mail|发送
send|verschicken|versenden|senden|schicken|rausgehen
cancel|terminate|end|discontinue|unsubscribe|kündigen|取消
hire|bring in|recruit|engage|contract|einstellen|招聘
buy|purchase|order|acquire|kaufen|bestellen|购买|买
obtain|collect|gather|request|fetch|receive|einholen
quote|offer|estimate|bid|proposal|angebot|报价
company|firm|vendor|provider|supplier|agency|business|anbieter|firma|公司
key|token|secret|credential|api key
limit|cap|quota|ceiling|maximum|max|limiting
throttle|rate limit|rate-limit|rate limiting|rate-limiting|throttling
enable|turn on|switch on|activate|allow|einschalten|aktivieren|开启|启用
disable|turn off|switch off|deactivate|ausschalten|deaktivieren|关闭|禁用
theme|mode|scheme
banner|popup|pop-up|pop up|notice|dialog|modal|overlay
migrate|move|port|transfer|switch|shift|relocate|verlagern|umziehen|migrieren|迁移|迁|搬
upgrade|update|bump|move to|aktualisieren|升级
replace|swap|switch|substitute|ersetzen|替换|换
rename|umbenennen|重命名
fix|repair|resolve|beheben|修复
check|verify|confirm|validate|prüfen
ask|check with|consult|inquire|enquire|query|fragen
review|audit|inspect|prüfen
documentation|docs|doc|dokumentation|文档
repository|repo
freelance|freelancer|contract|contractor|external
database|db|datenbank|数据库
postgres|postgresql|pg|psql
mysql|mariadb
connection|conn
production|prod|live|produktion|生产
staging|stage|preprod
development|dev
continuous integration|ci
continuous deployment|continuous delivery|cd
github|gh
github actions|gh actions|gha
command-line interface|command line interface|command line|cli
two-factor authentication|two factor authentication|2fa|mfa|multi-factor authentication
authentication|auth|login|log in|sign in|signin|sign-in
sign up|signup|register|registration
authorization|authz|permissions|access control
configuration|config|conf|settings|setup
environment|env
kubernetes|k8s
javascript|js
typescript|ts
application|app
utilities|utils|util|utility|helpers|helper
package|module|library|lib|crate
pull request|pr|merge request|mr
issue|ticket|bug
user interface|ui|frontend|front end|front-end
backend|back end|back-end|server side
year|yr|yrs|annual|yearly|jahr|年
month|mo|mos|monthly|monat|月
day|days|daily|tag|天|日
week|wk|wks|weekly|woche|周
hour|hr|hrs|hourly|stunde|小时
minute|min|mins
message|msg
information|info
number|num|nr
email|e-mail|mail|e mail|邮件
invoice|bill|rechnung|发票
contract|agreement|vertrag|合同
public|open up|open-source|open source|publish|öffentlich|公开
private|internal|privat|私有
unused|not used|nobody uses|idle|inactive|dormant|unbenutzt
image|picture|photo|graphic|bild|图片|图
slogan|tagline|motto|标语|口号
homepage|home page|landing page|front page|startseite|首页
website|site|web site|webseite|官网|网站
meeting|call|sync
deadline|due date|due
price|pricing|cost|preis|价格
discount|rebate|reduction|rabatt|折扣
employee|staff|team member|mitarbeiter|员工
customer|client|kunde|客户
""".strip().splitlines()
