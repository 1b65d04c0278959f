// SPDX-License-Identifier: MIT
#include "protobufdecoder.h"

#include "decodebudget.h"

#include <QStringDecoder>

#include <cstring>

namespace gatehouse {

namespace {

// Printable UTF-8: no control characters but tab and newlines.
bool printableText(const QByteArray &b, QString *text)
{
    if (b.isEmpty())
        return false;
    QStringDecoder utf8(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    const QString s = utf8.decode(b);
    if (utf8.hasError())
        return false;
    for (QChar c : s) {
        if ((c.unicode() < 0x20 && c != QLatin1Char('\n') && c != QLatin1Char('\t')
             && c != QLatin1Char('\r'))
            || c.unicode() == 0x7f)
            return false;
    }
    *text = s;
    return true;
}

class ProtobufReader
{
public:
    explicit ProtobufReader(DecodeBudget &budget)
        : m_budget(budget)
    {}

    QString why;

    // The whole of in as one message; false (why set) when it is not one.
    bool message(const QByteArray &in, int depth, PayloadValue *out)
    {
        if (depth > m_budget.limits().maxDepth)
            return fail(QStringLiteral("nested deeper than %1").arg(m_budget.limits().maxDepth), 0);
        PayloadValue m = PayloadValue::map(QStringLiteral("message"));
        qsizetype pos = 0;
        while (pos < in.size()) {
            if (!m_budget.spend())
                return fail(m_budget.reason(), pos);
            quint64 tag = 0;
            if (!varint(in, &pos, &tag))
                return fail(QStringLiteral("a field's tag runs past the end"), pos);
            const quint64 field = tag >> 3;
            const int wire = int(tag & 7);
            if (field == 0 || field > 536870911)
                return fail(QStringLiteral("field number %1").arg(field), pos);
            PayloadValue value;
            QString type;
            if (!fieldValue(in, &pos, wire, depth, &value, &type))
                return false;
            m.children.push_back(PayloadValue::note(QStringLiteral("%1 %2").arg(field).arg(type)));
            m.children.push_back(std::move(value));
        }
        *out = std::move(m);
        return true;
    }

private:
    bool fail(const QString &what, qsizetype pos)
    {
        if (why.isEmpty())
            why = QStringLiteral("not protobuf (%1 at byte %2)").arg(what).arg(pos);
        return false;
    }

    static bool varint(const QByteArray &in, qsizetype *pos, quint64 *v)
    {
        *v = 0;
        for (int shift = 0; shift < 64 && *pos < in.size(); shift += 7) {
            const uchar b = uchar(in.at((*pos)++));
            *v |= quint64(b & 0x7f) << shift;
            if (!(b & 0x80))
                return true;
        }
        return false;
    }

    static quint64 littleEndian(const QByteArray &in, qsizetype at, int n)
    {
        quint64 v = 0;
        for (int i = n - 1; i >= 0; --i)
            v = (v << 8) | uchar(in.at(at + i));
        return v;
    }

    bool fieldValue(const QByteArray &in, qsizetype *pos, int wire, int depth, PayloadValue *value,
                    QString *type)
    {
        switch (wire) {
        case 0: {
            quint64 v = 0;
            if (!varint(in, pos, &v))
                return fail(QStringLiteral("a varint runs past the end"), *pos);
            *type = QStringLiteral("varint");
            // Signed (int64) when the top bit is set; zigzag (sint) beside an odd value.
            QString text = qint64(v) < 0 ? QString::number(qint64(v)) : QString::number(v);
            if (v & 1)
                text += QStringLiteral(" (sint %1)").arg(-qint64((v + 1) >> 1));
            *value = PayloadValue::number(text);
            return true;
        }
        case 1:
        case 5: {
            const int n = wire == 1 ? 8 : 4;
            if (in.size() - *pos < n)
                return fail(QStringLiteral("a fixed%1 runs past the end").arg(8 * n), *pos);
            const quint64 v = littleEndian(in, *pos, n);
            *pos += n;
            QString text;
            if (n == 8) {
                double d = 0;
                std::memcpy(&d, &v, 8);
                text = QStringLiteral("%1 (double %2)").arg(v).arg(d, 0, 'g', 17);
            } else {
                const quint32 bits = quint32(v);
                float f = 0;
                std::memcpy(&f, &bits, 4);
                text = QStringLiteral("%1 (float %2)").arg(bits).arg(double(f), 0, 'g', 9);
            }
            *type = n == 8 ? QStringLiteral("fixed64") : QStringLiteral("fixed32");
            *value = PayloadValue::number(text);
            return true;
        }
        case 2: {
            quint64 n = 0;
            if (!varint(in, pos, &n) || n > quint64(in.size() - *pos))
                return fail(QStringLiteral("a length past the end"), *pos);
            const QByteArray bytes = in.mid(*pos, qsizetype(n));
            *pos += qsizetype(n);
            return lengthDelimited(bytes, depth, value, type);
        }
        default:
            break;
        }
        return fail(QStringLiteral("wire type %1").arg(wire), *pos);
    }

    bool lengthDelimited(const QByteArray &bytes, int depth, PayloadValue *value, QString *type)
    {
        QString text;
        if (printableText(bytes, &text)) {
            *type = QStringLiteral("string");
            *value = PayloadValue::string(text);
            return true;
        }
        if (!bytes.isEmpty() && depth < m_budget.limits().maxDepth) {
            ProtobufReader inner(m_budget);
            PayloadValue nested;
            if (inner.message(bytes, depth + 1, &nested)) {
                *type = QStringLiteral("message");
                *value = std::move(nested);
                return true;
            }
            if (m_budget.exhausted())
                return fail(m_budget.reason(), 0);
        }
        *type = QStringLiteral("bytes");
        *value = PayloadValue::fromBytes(bytes);
        return true;
    }

    DecodeBudget &m_budget;
};

} // namespace

DecodeResult decodeProtobuf(const QByteArray &input, DecodeBudget &budget)
{
    if (input.isEmpty())
        return DecodeResult::failed(QStringLiteral("empty"));
    ProtobufReader reader(budget);
    DecodeResult r;
    if (!reader.message(input, 0, &r.value))
        return DecodeResult::failed(reader.why);
    r.ok = true;
    r.name = QStringLiteral("protobuf (no schema)");
    return r;
}

} // namespace gatehouse
