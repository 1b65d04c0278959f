// SPDX-License-Identifier: MIT
#include "jobquery.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QRegularExpression>

namespace gatehouse {

namespace {

using Term = JobQuery::Term;

struct Token
{
    QString text;
    bool op = false;
    bool quoted = false;
    int at = 0; // 1-based character, for messages
};

bool isOpChar(QChar c)
{
    return c == QLatin1Char('=') || c == QLatin1Char('~') || c == QLatin1Char('>')
           || c == QLatin1Char('<');
}

std::optional<QList<Token>> tokenize(const QString &s, QString *error)
{
    QList<Token> tokens;
    qsizetype i = 0;
    while (i < s.size()) {
        const QChar c = s.at(i);
        if (c.isSpace()) {
            ++i;
            continue;
        }
        Token t;
        t.at = int(i + 1);
        if (c == QLatin1Char('"')) {
            t.quoted = true;
            ++i;
            bool closed = false;
            while (i < s.size()) {
                if (s.at(i) == QLatin1Char('\\') && i + 1 < s.size()) {
                    t.text += s.at(i + 1);
                    i += 2;
                    continue;
                }
                if (s.at(i) == QLatin1Char('"')) {
                    closed = true;
                    ++i;
                    break;
                }
                t.text += s.at(i++);
            }
            if (!closed) {
                *error = QStringLiteral("The quote opened at character %1 is not closed: end the "
                                        "value with \".")
                             .arg(t.at);
                return std::nullopt;
            }
        } else if (isOpChar(c)
                   || (c == QLatin1Char('!') && i + 1 < s.size()
                       && s.at(i + 1) == QLatin1Char('='))) {
            t.op = true;
            t.text = c;
            ++i;
            if (c != QLatin1Char('~') && c != QLatin1Char('=') && i < s.size()
                && s.at(i) == QLatin1Char('='))
                t.text += s.at(i++);
        } else {
            while (i < s.size() && !s.at(i).isSpace() && s.at(i) != QLatin1Char('"')
                   && !isOpChar(s.at(i))
                   && !(s.at(i) == QLatin1Char('!') && i + 1 < s.size()
                        && s.at(i + 1) == QLatin1Char('=')))
                t.text += s.at(i++);
        }
        tokens.append(t);
    }
    return tokens;
}

std::optional<Term::Op> opOf(const QString &text)
{
    if (text == QLatin1String("="))
        return Term::Op::Equal;
    if (text == QLatin1String("!="))
        return Term::Op::NotEqual;
    if (text == QLatin1String("~"))
        return Term::Op::Contains;
    if (text == QLatin1String(">"))
        return Term::Op::Greater;
    if (text == QLatin1String(">="))
        return Term::Op::GreaterEqual;
    if (text == QLatin1String("<"))
        return Term::Op::Less;
    if (text == QLatin1String("<="))
        return Term::Op::LessEqual;
    return std::nullopt;
}

bool isOrdering(Term::Op op)
{
    return op == Term::Op::Greater || op == Term::Op::GreaterEqual || op == Term::Op::Less
           || op == Term::Op::LessEqual;
}

// "90s", "5m", "2h", "1d", "250ms": the unit is required.
std::optional<double> ageMs(const QString &text)
{
    // The unit is required: "age<10" could mean 10 ms or 10 s.
    static const QRegularExpression re(QStringLiteral("^(\\d+(?:\\.\\d+)?)(ms|s|m|h|d)$"));
    const QRegularExpressionMatch m = re.match(text.trimmed().toLower());
    if (!m.hasMatch())
        return std::nullopt;
    const double n = m.captured(1).toDouble();
    const QString unit = m.captured(2);
    if (unit == QLatin1String("ms"))
        return n;
    if (unit == QLatin1String("m"))
        return n * 60'000;
    if (unit == QLatin1String("h"))
        return n * 3'600'000;
    if (unit == QLatin1String("d"))
        return n * 86'400'000;
    return n * 1000; // s
}

bool compareNumber(double a, Term::Op op, double b)
{
    switch (op) {
    case Term::Op::Equal:
        return a == b;
    case Term::Op::NotEqual:
        return a != b;
    case Term::Op::Greater:
        return a > b;
    case Term::Op::GreaterEqual:
        return a >= b;
    case Term::Op::Less:
        return a < b;
    case Term::Op::LessEqual:
        return a <= b;
    case Term::Op::Contains:
        break;
    }
    return false;
}

bool compareText(const QString &text, const Term &t)
{
    switch (t.op) {
    case Term::Op::Contains:
        return text.contains(t.value, Qt::CaseInsensitive);
    case Term::Op::Equal:
        return text == t.value;
    case Term::Op::NotEqual:
        return text != t.value;
    default:
        break;
    }
    bool ok = false;
    const double n = text.toDouble(&ok);
    return ok && t.number && compareNumber(n, t.op, *t.number);
}

enum class Verdict { No, Yes, Unknown };

Verdict rowVerdict(const Term &t, const JobRow &row, qint64 nowMs)
{
    const auto yes = [](bool b) {
        return b ? Verdict::Yes : Verdict::No;
    };
    switch (t.field) {
    case Term::Field::Id: {
        const QString id = QString::fromUtf8(row.id);
        if (t.op == Term::Op::Equal && !row.ref.isEmpty() && QString::fromUtf8(row.ref) == t.value)
            return Verdict::Yes;
        return yes(compareText(id, t));
    }
    case Term::Field::Name:
        return yes(compareText(row.name, t));
    case Term::Field::Error:
        return yes(compareText(row.error, t));
    case Term::Field::Age:
        return yes(row.atMs >= 0 && t.number
                   && compareNumber(double(nowMs - row.atMs), t.op, *t.number));
    case Term::Field::Attempts:
        return yes(row.attempts >= 0 && t.number
                   && compareNumber(double(row.attempts), t.op, *t.number));
    case Term::Field::Any:
        if (QString::fromUtf8(row.id).contains(t.value, Qt::CaseInsensitive)
            || row.name.contains(t.value, Qt::CaseInsensitive)
            || row.error.contains(t.value, Qt::CaseInsensitive))
            return Verdict::Yes;
        return Verdict::Unknown;
    case Term::Field::Path:
        return Verdict::Unknown;
    }
    return Verdict::No;
}

QString leafText(const QJsonValue &v)
{
    switch (v.type()) {
    case QJsonValue::String:
        return v.toString();
    case QJsonValue::Double: {
        const double d = v.toDouble();
        if (d == double(qint64(d)) && std::abs(d) < 9e15)
            return QString::number(qint64(d));
        return QString::number(d, 'g', 17);
    }
    case QJsonValue::Bool:
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QJsonValue::Null:
        return QStringLiteral("null");
    case QJsonValue::Object:
        return QString::fromUtf8(QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact));
    case QJsonValue::Array:
        return QString::fromUtf8(QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact));
    case QJsonValue::Undefined:
        break;
    }
    return {};
}

// A string holding JSON (a library that stores its payload as a JSON text
// inside its JSON record) is walked into too.
QJsonValue parsedIfJson(const QJsonValue &v)
{
    if (!v.isString())
        return v;
    const QString s = v.toString().trimmed();
    if (!s.startsWith(QLatin1Char('{')) && !s.startsWith(QLatin1Char('[')))
        return v;
    const QJsonDocument doc = QJsonDocument::fromJson(s.toUtf8());
    if (doc.isObject())
        return doc.object();
    if (doc.isArray())
        return doc.array();
    return v;
}

// The values at path from segment from: an array's elements all, unless the
// segment is an index.
void resolve(const QJsonValue &at, const QStringList &path, qsizetype from, QList<QJsonValue> *out,
             int depth = 0)
{
    if (depth > 64)
        return;
    const QJsonValue v = from < path.size() ? parsedIfJson(at) : at;
    if (from == path.size()) {
        out->append(v);
        return;
    }
    const QString &seg = path.at(from);
    if (v.isObject()) {
        const QJsonObject o = v.toObject();
        if (o.contains(seg))
            resolve(o.value(seg), path, from + 1, out, depth + 1);
        return;
    }
    if (v.isArray()) {
        const QJsonArray a = v.toArray();
        bool isIndex = false;
        const int index = seg.toInt(&isIndex);
        if (isIndex) {
            if (index >= 0 && index < a.size())
                resolve(a.at(index), path, from + 1, out, depth + 1);
            return;
        }
        for (const QJsonValue &e : a)
            resolve(e, path, from, out, depth + 1);
    }
}

bool leafMatches(const QJsonValue &leaf, const Term &t)
{
    if (leaf.isArray() && t.op != Term::Op::NotEqual) {
        const QJsonArray a = leaf.toArray();
        for (const QJsonValue &e : a) {
            if (!e.isArray() && leafMatches(e, t))
                return true;
        }
        if (t.op != Term::Op::Contains)
            return false;
    }
    if (leaf.isDouble() && t.number && t.op != Term::Op::Contains)
        return compareNumber(leaf.toDouble(), t.op, *t.number);
    return compareText(leafText(leaf), t);
}

bool pathMatches(const Term &t, const JobListing &detail)
{
    QList<QJsonValue> leaves;
    const QJsonDocument record = QJsonDocument::fromJson(detail.detail.toUtf8());
    if (record.isObject())
        resolve(record.object(), t.path, 0, &leaves);
    else if (record.isArray())
        resolve(record.array(), t.path, 0, &leaves);
    // A payload, whatever its format (JSON, base64 → JSON, msgpack, a
    // pickle, PHP serialize), as JobBrowser::decoded made it JSON: its field
    // name leads the path (RQ's pickled data.2.0 is its job's first argument).
    for (const JobPayload &p : detail.payloads) {
        if (p.field != t.path.first())
            continue;
        const QJsonValue decoded
            = p.json.isObject() || p.json.isArray() ? p.json : parsedIfJson(QJsonValue(p.decoded));
        if (decoded.isObject() || decoded.isArray())
            resolve(decoded, t.path, 1, &leaves);
    }
    if (t.op == Term::Op::NotEqual) {
        for (const QJsonValue &leaf : std::as_const(leaves)) {
            Term equal = t;
            equal.op = Term::Op::Equal;
            if (leafMatches(leaf, equal))
                return false;
        }
        return true;
    }
    for (const QJsonValue &leaf : std::as_const(leaves)) {
        if (leafMatches(leaf, t))
            return true;
    }
    return false;
}

bool anywhere(const Term &t, const JobListing &detail)
{
    if (detail.detail.contains(t.value, Qt::CaseInsensitive))
        return true;
    for (const JobPayload &p : detail.payloads) {
        const QString text = p.decoded.isEmpty() ? QString::fromUtf8(p.bytes) : p.decoded;
        if (text.contains(t.value, Qt::CaseInsensitive))
            return true;
    }
    return false;
}

// What is wrong with the term at token i, before it is read: "or" or
// "not" (terms are joined by "and" only: taken as a word to find, it would
// match something else than meant, silently), an operator with no field
// before it, two operators in a row, or no value after one.
QString misplaced(const QList<Token> &tokens, qsizetype i)
{
    const Token &tok = tokens.at(i);
    if (!tok.quoted && !tok.op
        && (tok.text.compare(QLatin1String("or"), Qt::CaseInsensitive) == 0
            || tok.text.compare(QLatin1String("not"), Qt::CaseInsensitive) == 0))
        return QStringLiteral("\"%1\" at character %2: terms are joined by \"and\" only (every "
                              "term must hold). Search once per alternative, or quote \"%1\" to "
                              "find the word itself.")
            .arg(tok.text)
            .arg(tok.at);
    if (tok.op)
        return QStringLiteral("\"%1\" at character %2 has no field before it: write "
                              "FIELD%1VALUE, for example error~timeout.")
            .arg(tok.text)
            .arg(tok.at);
    if (i + 1 >= tokens.size() || !tokens.at(i + 1).op)
        return {}; // a bare word
    const Token &opTok = tokens.at(i + 1);
    if (i + 2 < tokens.size() && tokens.at(i + 2).op)
        return QStringLiteral("\"%1%2%3\" at character %4: one operator between a field and "
                              "its value, for example %1%2VALUE.")
            .arg(tok.text, opTok.text, tokens.at(i + 2).text)
            .arg(tok.at);
    if (i + 2 >= tokens.size())
        return QStringLiteral("\"%1%2\" at character %3 has no value after it: write %1%2VALUE "
                              "(quote a value with spaces).")
            .arg(tok.text, opTok.text)
            .arg(tok.at);
    return {};
}

} // namespace

std::optional<JobQuery> JobQuery::parse(const QString &expression, QString *error)
{
    QString ignored;
    if (!error)
        error = &ignored;
    const std::optional<QList<Token>> tokens = tokenize(expression, error);
    if (!tokens)
        return std::nullopt;
    JobQuery q;
    q.text = expression.simplified();
    static const QRegularExpression pathRe(
        QStringLiteral("^[A-Za-z_$][A-Za-z0-9_$-]*(\\.[A-Za-z0-9_$-]+)*$"));
    for (qsizetype i = 0; i < tokens->size(); ++i) {
        const Token &tok = tokens->at(i);
        if (!tok.quoted && !tok.op
            && tok.text.compare(QLatin1String("and"), Qt::CaseInsensitive) == 0)
            continue;
        if (const QString why = misplaced(*tokens, i); !why.isEmpty()) {
            *error = why;
            return std::nullopt;
        }
        Term t;
        const bool hasOp = i + 1 < tokens->size() && tokens->at(i + 1).op;
        if (!hasOp) {
            if (tok.text.isEmpty())
                continue;
            t.field = Term::Field::Any;
            t.op = Term::Op::Contains;
            t.value = tok.text;
            q.terms.append(t);
            continue;
        }
        const Token &opTok = tokens->at(i + 1);
        const Token &valueTok = tokens->at(i + 2);
        i += 2;
        t.op = *opOf(opTok.text);
        t.value = valueTok.text;
        const QString field = tok.text.toLower();
        if (field == QLatin1String("id"))
            t.field = Term::Field::Id;
        else if (field == QLatin1String("name") || field == QLatin1String("class"))
            t.field = Term::Field::Name;
        else if (field == QLatin1String("error"))
            t.field = Term::Field::Error;
        else if (field == QLatin1String("age"))
            t.field = Term::Field::Age;
        else if (field == QLatin1String("attempts"))
            t.field = Term::Field::Attempts;
        else if (field == QLatin1String("state") && !tok.quoted) {
            // The state is where a search reads, not a term it matches (the
            // listing's state, whatever a record's own field says).
            *error = QStringLiteral("\"%1\" at character %2 is not a term of the search: choose "
                                    "the states to read with --state %3 (in the console, the "
                                    "search bar's list of states).")
                         .arg(tok.text)
                         .arg(tok.at)
                         .arg(t.op == Term::Op::Equal && !valueTok.text.isEmpty()
                                  ? valueTok.text
                                  : QStringLiteral("STATE[,STATE…]"));
            return std::nullopt;
        } else if (!tok.quoted && pathRe.match(tok.text).hasMatch()) {
            t.field = Term::Field::Path;
            t.path = tok.text.split(QLatin1Char('.'));
        } else {
            *error = QStringLiteral("\"%1\" at character %2 is not a field: use id, name, error, "
                                    "age, attempts, or a JSON path such as data.customerId.")
                         .arg(tok.text)
                         .arg(tok.at);
            return std::nullopt;
        }
        if (t.field == Term::Field::Age) {
            t.number = ageMs(t.value);
            if (!t.number || !isOrdering(t.op)) {
                *error = QStringLiteral("\"%1%2%3\" at character %4: an age is compared with > or "
                                        "< and has a unit (ms, s, m, h, d), as in age>30s, "
                                        "age<5m, age>2h or age>1d.")
                             .arg(tok.text, opTok.text, t.value)
                             .arg(tok.at);
                return std::nullopt;
            }
        } else {
            bool ok = false;
            const double n = t.value.toDouble(&ok);
            if (ok)
                t.number = n;
            const bool textField = t.field == Term::Field::Id || t.field == Term::Field::Name
                                   || t.field == Term::Field::Error;
            if (isOrdering(t.op) && (textField || !ok)) {
                *error = QStringLiteral("\"%1%2%3\" at character %4: %2 compares numbers; use = "
                                        "or ~ for text.")
                             .arg(tok.text, opTok.text, t.value)
                             .arg(tok.at);
                return std::nullopt;
            }
            if (t.field == Term::Field::Attempts && !ok) {
                *error = QStringLiteral("\"%1\" at character %2: attempts are a number, as in "
                                        "attempts>2.")
                             .arg(t.value)
                             .arg(valueTok.at);
                return std::nullopt;
            }
        }
        q.terms.append(t);
    }
    if (q.terms.isEmpty()) {
        *error = QStringLiteral("The search is empty: write a word to find, or FIELD=VALUE (id, "
                                "name, error, age, attempts, data.PATH).");
        return std::nullopt;
    }
    return q;
}

bool JobQuery::needsDetail() const
{
    return std::any_of(terms.cbegin(), terms.cend(), [](const Term &t) {
        return t.field == Term::Field::Path || t.field == Term::Field::Any;
    });
}

bool JobQuery::rowMayMatch(const JobRow &row, qint64 nowMs) const
{
    return std::none_of(terms.cbegin(), terms.cend(),
                        [&](const Term &t) { return rowVerdict(t, row, nowMs) == Verdict::No; });
}

bool JobQuery::rowSettles(const JobRow &row, qint64 nowMs) const
{
    return std::all_of(terms.cbegin(), terms.cend(),
                       [&](const Term &t) { return rowVerdict(t, row, nowMs) == Verdict::Yes; });
}

bool JobQuery::matches(const JobRow &row, const JobListing &detail, qint64 nowMs) const
{
    for (const Term &t : terms) {
        const Verdict v = rowVerdict(t, row, nowMs);
        if (v == Verdict::Yes)
            continue;
        if (v == Verdict::No || !detail.ok)
            return false;
        if (t.field == Term::Field::Path ? !pathMatches(t, detail) : !anywhere(t, detail))
            return false;
    }
    return true;
}

} // namespace gatehouse
