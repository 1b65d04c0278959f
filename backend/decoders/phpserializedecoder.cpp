// SPDX-License-Identifier: MIT
#include "phpserializedecoder.h"

#include "decodebudget.h"

namespace gatehouse {

namespace {

class PhpReader
{
public:
    PhpReader(const QByteArray &in, DecodeBudget &budget)
        : m_in(in)
        , m_budget(budget)
    {}

    bool read(PayloadValue *out, int depth)
    {
        if (!m_budget.spend())
            return fail(m_budget.reason());
        if (depth > m_budget.limits().maxDepth)
            return fail(QStringLiteral("nested deeper than %1").arg(m_budget.limits().maxDepth));
        if (m_pos + 1 >= m_in.size())
            return fail(QStringLiteral("ends early"));
        const char type = m_in.at(m_pos);
        if (type == 'N') {
            m_pos += 1;
            *out = PayloadValue::null();
            return expect(';');
        }
        m_pos += 1;
        if (!expect(':'))
            return false;
        switch (type) {
        case 'b': {
            const QByteArray v = until(';');
            if (v != "0" && v != "1")
                return fail(QStringLiteral("a boolean that is not 0 or 1"));
            *out = PayloadValue::fromBool(v == "1");
            return true;
        }
        case 'i':
        case 'd':
            return number(out, type == 'i');
        case 'r':
        case 'R': {
            qint64 n = 0;
            if (!integer(';', &n))
                return false;
            *out = PayloadValue::note(QStringLiteral("(reference to value %1)").arg(n));
            return true;
        }
        case 's': {
            QByteArray s;
            if (!lengthQuoted(&s) || !expect(';'))
                return false;
            *out = PayloadValue::string(QString::fromUtf8(s));
            return true;
        }
        case 'E': {
            QByteArray s;
            if (!lengthQuoted(&s) || !expect(';'))
                return false;
            *out = PayloadValue::note(QString::fromUtf8(s));
            return true;
        }
        case 'a':
            if (!members(out, PayloadValue::map(), depth, false))
                return false;
            asListIfSequential(out);
            return true;
        case 'O': {
            QByteArray name;
            if (!lengthQuoted(&name) || !expect(':'))
                return false;
            PayloadValue state = PayloadValue::map();
            PayloadValue object = PayloadValue::object(QString::fromUtf8(name));
            if (!members(&state, state, depth, true))
                return false;
            state.tag = QStringLiteral("state");
            object.children.push_back(std::move(state));
            *out = std::move(object);
            return true;
        }
        case 'C': {
            // Serializable::serialize(): the class's own format, shown as text.
            QByteArray name;
            QByteArray data;
            if (!lengthQuoted(&name) || !expect(':'))
                return false;
            qint64 n = 0;
            if (!integer(':', &n) || !expect('{') || n < 0 || n > m_in.size() - m_pos)
                return fail(QStringLiteral("a custom object's length past the end"));
            data = m_in.mid(m_pos, n);
            m_pos += n;
            if (!expect('}'))
                return false;
            PayloadValue object = PayloadValue::object(QString::fromUtf8(name));
            object.children.push_back(PayloadValue::string(QString::fromUtf8(data)));
            *out = std::move(object);
            return true;
        }
        default:
            break;
        }
        return fail(QStringLiteral("'%1' is not a PHP type").arg(QLatin1Char(type)));
    }

    bool atEnd() const { return m_pos == m_in.size(); }
    qsizetype pos() const { return m_pos; }
    QString why;

private:
    bool fail(const QString &what)
    {
        if (why.isEmpty())
            why = QStringLiteral("not PHP serialize (%1 at byte %2)").arg(what).arg(m_pos);
        return false;
    }

    bool expect(char c)
    {
        if (m_pos >= m_in.size() || m_in.at(m_pos) != c)
            return fail(QStringLiteral("'%1' expected").arg(QLatin1Char(c)));
        ++m_pos;
        return true;
    }

    QByteArray until(char end)
    {
        const qsizetype at = m_in.indexOf(end, m_pos);
        if (at < 0) {
            m_pos = m_in.size();
            return {};
        }
        const QByteArray v = m_in.mid(m_pos, at - m_pos);
        m_pos = at + 1;
        return v;
    }

    bool integer(char end, qint64 *n)
    {
        bool ok = false;
        const QByteArray text = until(end);
        *n = text.size() <= 20 ? text.toLongLong(&ok) : 0;
        return ok || fail(QStringLiteral("a number expected"));
    }

    bool number(PayloadValue *out, bool integral)
    {
        const QByteArray text = until(';');
        bool ok = false;
        if (integral)
            text.toLongLong(&ok);
        else
            text.toDouble(&ok);
        ok = ok || (!integral && (text == "INF" || text == "-INF" || text == "NAN"));
        if (!ok || text.size() > 40)
            return fail(QStringLiteral("a number expected"));
        *out = PayloadValue::number(QString::fromLatin1(text));
        return true;
    }

    // LEN:"bytes"
    bool lengthQuoted(QByteArray *s)
    {
        qint64 n = 0;
        if (!integer(':', &n) || !expect('"'))
            return false;
        if (n < 0 || n > m_in.size() - m_pos)
            return fail(QStringLiteral("a string's length past the end"));
        *s = m_in.mid(m_pos, n);
        m_pos += n;
        return expect('"');
    }

    // A property's name as PHP keeps it: "\0Class\0name" private, "\0*\0name" protected.
    static PayloadValue propertyName(const PayloadValue &key)
    {
        if (key.kind != PayloadValue::Kind::Text || !key.text.startsWith(QChar(0)))
            return key.kind == PayloadValue::Kind::Text ? PayloadValue::note(key.text) : key;
        const qsizetype second = key.text.indexOf(QChar(0), 1);
        if (second < 0)
            return PayloadValue::note(key.text.mid(1));
        const QString owner = key.text.mid(1, second - 1);
        const QString name = key.text.mid(second + 1);
        return PayloadValue::note(owner == QLatin1String("*")
                                      ? QStringLiteral("%1 (protected)").arg(name)
                                      : QStringLiteral("%1 (private %2)").arg(name, owner));
    }

    // A PHP array keyed 0, 1, ... n-1 in order is a list (what json_encode
    // writes as [..]; what a search's JSON path "data.tags" expects).
    static void asListIfSequential(PayloadValue *map)
    {
        const std::vector<PayloadValue> &c = map->children;
        for (size_t i = 0; i < c.size(); i += 2) {
            if (c[i].kind != PayloadValue::Kind::Number || c[i].text != QString::number(i / 2))
                return;
        }
        PayloadValue list = PayloadValue::list(map->tag);
        for (size_t i = 1; i < c.size(); i += 2)
            list.children.push_back(c[i]);
        *map = std::move(list);
    }

    // N:{key;value;...}
    bool members(PayloadValue *out, PayloadValue map, int depth, bool properties)
    {
        qint64 n = 0;
        if (!integer(':', &n) || !expect('{'))
            return false;
        // Each member takes at least 4 bytes ("i:0;N;"): a count past that is a lie.
        if (n < 0 || n > (m_in.size() - m_pos) / 4)
            return fail(QStringLiteral("%1 members claimed").arg(n));
        for (qint64 i = 0; i < n; ++i) {
            PayloadValue key;
            PayloadValue value;
            if (!read(&key, depth + 1) || !read(&value, depth + 1))
                return false;
            map.children.push_back(properties ? propertyName(key) : std::move(key));
            map.children.push_back(std::move(value));
        }
        if (!expect('}'))
            return false;
        *out = std::move(map);
        return true;
    }

    const QByteArray &m_in;
    DecodeBudget &m_budget;
    qsizetype m_pos = 0;
};

} // namespace

DecodeResult decodePhpSerialized(const QByteArray &input, DecodeBudget &budget)
{
    PhpReader reader(input, budget);
    DecodeResult r;
    if (!reader.read(&r.value, 0))
        return DecodeResult::failed(reader.why);
    if (!reader.atEnd())
        return DecodeResult::failed(
            QStringLiteral("not PHP serialize (more after the value, at byte %1)")
                .arg(reader.pos()));
    r.ok = true;
    r.name = QStringLiteral("PHP serialize");
    return r;
}

} // namespace gatehouse
