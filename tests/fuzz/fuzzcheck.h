// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArray>
#include <QString>

#include <cstdio>
#include <cstdlib>

// A property that must hold for every input: when it does not, libFuzzer
// saves the input as a crash (abort), with the property and where it failed.
#define GATEHOUSE_FUZZ_CHECK(condition, what)                                                      \
    do {                                                                                           \
        if (!(condition)) {                                                                        \
            std::fprintf(stderr, "%s:%d: property failed: %s (%s)\n", __FILE__, __LINE__,          \
                         #condition, QString(what).toLocal8Bit().constData());                     \
            std::abort();                                                                          \
        }                                                                                          \
    } while (false)

namespace gatehouse::Internal {

// Reads the fuzzer's input front to back; past the end every read gives 0 or
// empty, so every input decodes to something.
class FuzzInput
{
public:
    FuzzInput(const uint8_t *data, size_t size)
        : m_data(reinterpret_cast<const char *>(data))
        , m_size(qsizetype(size))
    {}

    bool atEnd() const { return m_pos >= m_size; }
    quint8 byte() { return atEnd() ? 0 : quint8(m_data[m_pos++]); }
    quint16 u16() { return quint16(byte() | (byte() << 8)); }
    quint32 u32() { return quint32(u16()) | (quint32(u16()) << 16); }
    qint64 i64() { return qint64(quint64(u32()) | (quint64(u32()) << 32)); }
    // Up to maxLength bytes, the length taken from the input.
    QByteArray bytes(qsizetype maxLength)
    {
        const qsizetype n = qMin<qsizetype>(byte() % (maxLength + 1), m_size - m_pos);
        const QByteArray out(m_data + m_pos, qMax<qsizetype>(0, n));
        m_pos += qMax<qsizetype>(0, n);
        return out;
    }
    QByteArray rest() const { return QByteArray(m_data + m_pos, m_size - qMin(m_pos, m_size)); }

private:
    const char *m_data;
    qsizetype m_size;
    qsizetype m_pos = 0;
};

} // namespace gatehouse::Internal
