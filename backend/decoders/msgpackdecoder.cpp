// SPDX-License-Identifier: MIT
#include "msgpackdecoder.h"

#include "decodebudget.h"

#include <QDateTime>

#include <cstring>

namespace gatehouse {

namespace {

class MsgpackReader
{
public:
    MsgpackReader(const QByteArray &in, DecodeBudget &budget)
        : m_in(in)
        , m_budget(budget)
    {}

    QString why;
    bool atEnd() const { return m_pos == m_in.size(); }
    qsizetype pos() const { return m_pos; }

    bool read(PayloadValue *out, int depth)
    {
        if (!m_budget.spend())
            return fail(m_budget.reason());
        if (depth > m_budget.limits().maxDepth)
            return fail(QStringLiteral("nested deeper than %1").arg(m_budget.limits().maxDepth));
        quint64 b = 0;
        if (!unsignedBE(1, &b))
            return false;
        if (b <= 0x7f) {
            *out = PayloadValue::number(QString::number(b));
            return true;
        }
        if (b >= 0xe0) {
            *out = PayloadValue::number(QString::number(qint64(b) - 256));
            return true;
        }
        if (b >= 0x80 && b <= 0x8f)
            return map(out, b & 0x0f, depth);
        if (b >= 0x90 && b <= 0x9f)
            return array(out, b & 0x0f, depth);
        if (b >= 0xa0 && b <= 0xbf)
            return string(out, b & 0x1f);
        return typed(uchar(b), out, depth);
    }

private:
    bool fail(const QString &what)
    {
        if (why.isEmpty())
            why = QStringLiteral("not msgpack (%1 at byte %2)").arg(what).arg(m_pos);
        return false;
    }

    bool unsignedBE(int n, quint64 *v)
    {
        if (m_in.size() - m_pos < n)
            return fail(QStringLiteral("ends early"));
        *v = 0;
        for (int i = 0; i < n; ++i)
            *v = (*v << 8) | uchar(m_in.at(m_pos + i));
        m_pos += n;
        return true;
    }

    bool take(quint64 n, QByteArray *bytes)
    {
        if (n > quint64(m_in.size() - m_pos))
            return fail(QStringLiteral("a length of %1 past the end").arg(n));
        *bytes = m_in.mid(m_pos, qsizetype(n));
        m_pos += qsizetype(n);
        return true;
    }

    bool string(PayloadValue *out, quint64 n)
    {
        QByteArray s;
        if (!take(n, &s))
            return false;
        *out = PayloadValue::string(QString::fromUtf8(s));
        return true;
    }

    bool array(PayloadValue *out, quint64 n, int depth)
    {
        if (n > quint64(m_in.size() - m_pos)) // each element takes a byte at least
            return fail(QStringLiteral("%1 elements claimed").arg(n));
        PayloadValue list = PayloadValue::list();
        for (quint64 i = 0; i < n; ++i) {
            list.children.emplace_back();
            if (!read(&list.children.back(), depth + 1))
                return false;
        }
        *out = std::move(list);
        return true;
    }

    bool map(PayloadValue *out, quint64 n, int depth)
    {
        if (n > quint64(m_in.size() - m_pos) / 2)
            return fail(QStringLiteral("%1 entries claimed").arg(n));
        PayloadValue m = PayloadValue::map();
        for (quint64 i = 0; i < 2 * n; ++i) {
            m.children.emplace_back();
            if (!read(&m.children.back(), depth + 1))
                return false;
        }
        *out = std::move(m);
        return true;
    }

    bool ext(PayloadValue *out, quint64 n)
    {
        quint64 type = 0;
        QByteArray data;
        if (!unsignedBE(1, &type) || !take(n, &data))
            return false;
        const qint8 t = qint8(type);
        if (t == -1 && (n == 4 || n == 8 || n == 12)) {
            // The timestamp extension: seconds (and nanoseconds) since the epoch.
            qint64 s = 0;
            quint32 ns = 0;
            const auto be = [&data](int at, int len) {
                quint64 v = 0;
                for (int i = 0; i < len; ++i)
                    v = (v << 8) | uchar(data.at(at + i));
                return v;
            };
            if (n == 4) {
                s = qint64(be(0, 4));
            } else if (n == 8) {
                const quint64 v = be(0, 8);
                ns = quint32(v >> 34);
                s = qint64(v & 0x3ffffffffULL);
            } else {
                ns = quint32(be(0, 4));
                s = qint64(be(4, 8));
            }
            if (s > -62135596800LL && s < 253402300800LL) {
                *out = PayloadValue::note(QDateTime::fromSecsSinceEpoch(s, Qt::UTC)
                                              .addMSecs(ns / 1000000)
                                              .toString(Qt::ISODateWithMs));
                return true;
            }
        }
        PayloadValue v = PayloadValue::object(QStringLiteral("ext %1").arg(t));
        v.children.push_back(PayloadValue::fromBytes(data));
        *out = std::move(v);
        return true;
    }

    bool typed(uchar b, PayloadValue *out, int depth)
    {
        quint64 n = 0;
        switch (b) {
        case 0xc0:
            *out = PayloadValue::null();
            return true;
        case 0xc2:
        case 0xc3:
            *out = PayloadValue::fromBool(b == 0xc3);
            return true;
        case 0xc4:
        case 0xc5:
        case 0xc6: {
            QByteArray data;
            if (!unsignedBE(1 << (b - 0xc4), &n) || !take(n, &data))
                return false;
            *out = PayloadValue::fromBytes(data);
            return true;
        }
        case 0xc7:
        case 0xc8:
        case 0xc9:
            return unsignedBE(1 << (b - 0xc7), &n) && ext(out, n);
        case 0xca: {
            if (!unsignedBE(4, &n))
                return false;
            const quint32 bits = quint32(n);
            float f = 0;
            std::memcpy(&f, &bits, 4);
            *out = PayloadValue::number(QString::number(double(f), 'g', 9));
            return true;
        }
        case 0xcb: {
            if (!unsignedBE(8, &n))
                return false;
            double d = 0;
            std::memcpy(&d, &n, 8);
            *out = PayloadValue::number(QString::number(d, 'g', 17));
            return true;
        }
        case 0xcc:
        case 0xcd:
        case 0xce:
        case 0xcf:
            if (!unsignedBE(1 << (b - 0xcc), &n))
                return false;
            *out = PayloadValue::number(QString::number(n));
            return true;
        case 0xd0:
        case 0xd1:
        case 0xd2:
        case 0xd3: {
            const int len = 1 << (b - 0xd0);
            if (!unsignedBE(len, &n))
                return false;
            const int shift = 64 - 8 * len;
            const qint64 v = qint64(n << shift) >> shift; // sign-extended
            *out = PayloadValue::number(QString::number(v));
            return true;
        }
        case 0xd4:
        case 0xd5:
        case 0xd6:
        case 0xd7:
        case 0xd8:
            return ext(out, quint64(1) << (b - 0xd4));
        case 0xd9:
        case 0xda:
        case 0xdb:
            return unsignedBE(1 << (b - 0xd9), &n) && string(out, n);
        case 0xdc:
        case 0xdd:
            return unsignedBE(b == 0xdc ? 2 : 4, &n) && array(out, n, depth);
        case 0xde:
        case 0xdf:
            return unsignedBE(b == 0xde ? 2 : 4, &n) && map(out, n, depth);
        default:
            break;
        }
        return fail(QStringLiteral("0x%1 is not a msgpack type").arg(b, 2, 16, QLatin1Char('0')));
    }

    const QByteArray &m_in;
    DecodeBudget &m_budget;
    qsizetype m_pos = 0;
};

} // namespace

DecodeResult decodeMsgpack(const QByteArray &input, DecodeBudget &budget)
{
    MsgpackReader reader(input, budget);
    DecodeResult r;
    if (!reader.read(&r.value, 0))
        return DecodeResult::failed(reader.why);
    if (!reader.atEnd())
        return DecodeResult::failed(
            QStringLiteral("not msgpack (more after the value, at byte %1)").arg(reader.pos()));
    r.ok = true;
    r.name = QStringLiteral("msgpack");
    return r;
}

} // namespace gatehouse
