// SPDX-License-Identifier: MIT
#include "payloadvalue.h"

#include "decodebudget.h"

#include <QStringList>

namespace gatehouse {

PayloadValue PayloadValue::fromBool(bool b)
{
    PayloadValue v;
    v.kind = Kind::Bool;
    v.boolean = b;
    return v;
}

PayloadValue PayloadValue::number(const QString &text)
{
    PayloadValue v;
    v.kind = Kind::Number;
    v.text = text;
    return v;
}

PayloadValue PayloadValue::string(const QString &text)
{
    PayloadValue v;
    v.kind = Kind::Text;
    v.text = text;
    return v;
}

PayloadValue PayloadValue::fromBytes(const QByteArray &bytes)
{
    PayloadValue v;
    v.kind = Kind::Bytes;
    v.bytes = bytes;
    return v;
}

PayloadValue PayloadValue::note(const QString &text)
{
    PayloadValue v;
    v.kind = Kind::Note;
    v.text = text;
    return v;
}

PayloadValue PayloadValue::list(const QString &tag)
{
    PayloadValue v;
    v.kind = Kind::List;
    v.tag = tag;
    return v;
}

PayloadValue PayloadValue::map(const QString &tag)
{
    PayloadValue v;
    v.kind = Kind::Map;
    v.tag = tag;
    return v;
}

PayloadValue PayloadValue::object(const QString &name, const QString &tag)
{
    PayloadValue v;
    v.kind = Kind::Object;
    v.text = name;
    v.tag = tag;
    return v;
}

namespace {

using Kind = PayloadValue::Kind;

QString quoted(const QString &s, int foldChars)
{
    QString out;
    out.reserve(std::min<qsizetype>(s.size(), foldChars) + 2);
    out += QLatin1Char('"');
    const qsizetype shown = std::min<qsizetype>(s.size(), foldChars);
    for (qsizetype i = 0; i < shown; ++i) {
        const QChar c = s.at(i);
        switch (c.unicode()) {
        case '"':
            out += QLatin1String("\\\"");
            break;
        case '\\':
            out += QLatin1String("\\\\");
            break;
        case '\n':
            out += QLatin1String("\\n");
            break;
        case '\r':
            out += QLatin1String("\\r");
            break;
        case '\t':
            out += QLatin1String("\\t");
            break;
        default:
            if (c.unicode() < 0x20 || c.unicode() == 0x7f)
                out += QStringLiteral("\\u%1").arg(c.unicode(), 4, 16, QLatin1Char('0'));
            else
                out += c;
        }
    }
    out += QLatin1Char('"');
    if (s.size() > shown)
        out += QStringLiteral("… (%1 more characters)").arg(s.size() - shown);
    return out;
}

QString bytesText(const QByteArray &b, int foldChars)
{
    // Mostly printable ASCII: b"..." with escapes; else hex.
    qsizetype printable = 0;
    for (char c : b)
        printable += (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t';
    const qsizetype shown = std::min<qsizetype>(b.size(), foldChars);
    QString out;
    if (b.isEmpty() || printable * 10 >= b.size() * 9) {
        out = QStringLiteral("b\"");
        for (qsizetype i = 0; i < std::min<qsizetype>(b.size(), foldChars); ++i) {
            const uchar c = uchar(b.at(i));
            if (c == '"' || c == '\\')
                out += QLatin1Char('\\') + QLatin1Char(char(c));
            else if (c >= 0x20 && c < 0x7f)
                out += QLatin1Char(char(c));
            else
                out += QStringLiteral("\\x%1").arg(c, 2, 16, QLatin1Char('0'));
        }
        out += QLatin1Char('"');
    } else {
        const qsizetype hexShown = std::min<qsizetype>(shown, 64);
        out = QStringLiteral("<%1 bytes: %2>")
                  .arg(b.size())
                  .arg(QString::fromLatin1(b.left(hexShown).toHex(' ')));
        if (b.size() > hexShown)
            out.insert(out.size() - 1, QStringLiteral(" …"));
        return out;
    }
    if (b.size() > shown)
        out += QStringLiteral("… (%1 more bytes)").arg(b.size() - shown);
    return out;
}

class Renderer
{
public:
    explicit Renderer(const DecodeLimits &limits)
        : m_limits(limits)
    {}

    QString run(const PayloadValue &v)
    {
        value(v, 0);
        if (m_cut)
            m_out += QStringLiteral("\n… (the decoded text is cut at %1 KiB)")
                         .arg(m_limits.maxOutput / 1024);
        return m_out;
    }

private:
    bool scalar(const PayloadValue &v) const
    {
        return v.kind != Kind::List && v.kind != Kind::Map && v.kind != Kind::Object;
    }

    QString scalarText(const PayloadValue &v) const
    {
        switch (v.kind) {
        case Kind::Null:
            return QStringLiteral("null");
        case Kind::Bool:
            return v.boolean ? QStringLiteral("true") : QStringLiteral("false");
        case Kind::Number:
            return v.text;
        case Kind::Text:
            return quoted(v.text, m_limits.foldChars);
        case Kind::Bytes:
            return bytesText(v.bytes, m_limits.foldChars);
        case Kind::Note:
            return v.text;
        default:
            return {};
        }
    }

    void put(const QString &s)
    {
        if (m_cut)
            return;
        if (m_out.size() + s.size() > m_limits.maxOutput) {
            m_out += s.left(std::max<qsizetype>(0, m_limits.maxOutput - m_out.size()));
            m_cut = true;
            return;
        }
        m_out += s;
    }

    void newline(int depth) { put(QLatin1Char('\n') + QString(2 * depth, QLatin1Char(' '))); }

    static std::pair<QString, QString> brackets(const PayloadValue &v)
    {
        if (v.kind == Kind::Map)
            return {QStringLiteral("{"), QStringLiteral("}")};
        if (v.tag == QLatin1String("tuple"))
            return {QStringLiteral("("), QStringLiteral(")")};
        if (v.tag == QLatin1String("set") || v.tag == QLatin1String("frozenset"))
            return {v.tag + QStringLiteral(" {"), QStringLiteral("}")};
        return {QStringLiteral("["), QStringLiteral("]")};
    }

    // A list of a few scalars on one line, when it is short.
    bool oneLine(const PayloadValue &v, QString *line) const
    {
        if (v.kind != Kind::List || v.children.size() > 8)
            return false;
        QStringList parts;
        qsizetype width = 0;
        for (const PayloadValue &c : v.children) {
            if (!scalar(c))
                return false;
            parts << scalarText(c);
            width += parts.last().size() + 2;
            if (width > 72)
                return false;
        }
        const auto [open, close] = brackets(v);
        // Python's one-element tuple keeps its comma: ("a",), not ("a").
        const bool single = v.tag == QLatin1String("tuple") && parts.size() == 1;
        *line = open + parts.join(QStringLiteral(", ")) + (single ? QStringLiteral(",") : QString())
                + close;
        return true;
    }

    void key(const PayloadValue &k)
    {
        // A decoder's own word (a protobuf field, a PHP property) unquoted.
        put(k.kind == Kind::Note || k.kind == Kind::Number ? k.text : scalarText(k));
        put(QStringLiteral(": "));
    }

    void value(const PayloadValue &v, int depth)
    {
        if (m_cut)
            return;
        if (scalar(v)) {
            put(scalarText(v));
            return;
        }
        if (depth >= m_limits.maxDepth) {
            put(QStringLiteral("… (nested deeper than %1)").arg(m_limits.maxDepth));
            return;
        }
        if (v.kind == Kind::Object) {
            object(v, depth);
            return;
        }
        QString line;
        if (oneLine(v, &line)) {
            put(line);
            return;
        }
        container(v, depth);
    }

    void container(const PayloadValue &v, int depth)
    {
        const auto [open, close] = brackets(v);
        const bool isMap = v.kind == Kind::Map;
        const std::size_t step = isMap ? 2 : 1;
        const std::size_t items = v.children.size() / step;
        if (items == 0) {
            put(open + close);
            return;
        }
        put(open);
        const std::size_t shown = std::min<std::size_t>(items, std::size_t(m_limits.foldItems));
        for (std::size_t i = 0; i < shown && !m_cut; ++i) {
            if (i > 0)
                put(QStringLiteral(","));
            newline(depth + 1);
            if (isMap)
                key(v.children.at(2 * i));
            value(v.children.at(step * i + step - 1), depth + 1);
        }
        if (items == 1 && v.tag == QLatin1String("tuple"))
            put(QStringLiteral(","));
        if (items > shown) {
            newline(depth + 1);
            put(QStringLiteral("… (%1 more %2)")
                    .arg(items - shown)
                    .arg(isMap ? QStringLiteral("entries") : QStringLiteral("items")));
        }
        newline(depth);
        put(close);
    }

    // Class(arguments) {state}: what a pickle or PHP object names, never run.
    void object(const PayloadValue &v, int depth)
    {
        put(v.text);
        std::vector<const PayloadValue *> args;
        std::vector<const PayloadValue *> after; // its state, the items added to it
        bool simple = true;
        for (const PayloadValue &c : v.children) {
            if (c.tag == QLatin1String("state") || c.tag == QLatin1String("items")) {
                after.push_back(&c);
            } else {
                args.push_back(&c);
                simple = simple && scalar(c);
            }
        }
        if (!args.empty() || after.empty()) {
            put(QStringLiteral("("));
            for (std::size_t i = 0; i < args.size() && !m_cut; ++i) {
                if (simple) {
                    put(i ? QStringLiteral(", ") : QString());
                } else {
                    put(i ? QStringLiteral(",") : QString());
                    newline(depth + 1);
                }
                value(*args.at(i), depth + 1);
            }
            if (!simple)
                newline(depth);
            put(QStringLiteral(")"));
        }
        for (const PayloadValue *a : after) {
            put(QStringLiteral(" "));
            if (a->kind == Kind::Map || a->kind == Kind::List)
                container(*a, depth);
            else
                value(*a, depth);
        }
    }

    const DecodeLimits &m_limits;
    QString m_out;
    bool m_cut = false;
};

} // namespace

QString renderPayloadValue(const PayloadValue &value, const DecodeLimits &limits)
{
    return Renderer(limits).run(value);
}

} // namespace gatehouse
