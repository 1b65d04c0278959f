// SPDX-License-Identifier: MIT
#include "history.h"

#include <cmath>
#include <cstring>

namespace gatehouse {

namespace {

// FirstWord: the motion's first sample number (bits 0-39), the slopes of
// its first 8 figures (2 bits per figure from bit 40: 0 flat, 1 falling, 2
// rising) and whether they are still unknown (bit 63: one sample so far).
// A ring of more figures keeps the others' slopes in one word after the
// values (2 bits each).
constexpr quint64 FirstMask = (quint64(1) << 40) - 1;
constexpr int SlopeShift = 40;
constexpr int SlopesInFirst = 8;
constexpr quint64 OpenBit = quint64(1) << 63;

enum Slope : quint64 { Flat = 0, Falling = 1, Rising = 2 };

// As historychanges.h's projectMotion: a fall stops at 0.
double project(double v, quint64 slope, qint64 dt)
{
    if (slope == Flat || dt <= 0)
        return v;
    if (slope == Falling)
        return v > 0 ? std::max(0.0, v - double(dt)) : v;
    return v + double(dt);
}

bool same(double a, double b)
{
    return a == b || (std::isnan(a) && std::isnan(b));
}

quint64 bitsOf(double v)
{
    quint64 w;
    std::memcpy(&w, &v, sizeof w);
    return w;
}

double doubleOf(quint64 w)
{
    double v;
    std::memcpy(&v, &w, sizeof v);
    return v;
}

} // namespace

qint64 HistoryRing::motionFirst(qsizetype m) const
{
    return qint64(m_motions.at(m * stride() + FirstWord) & FirstMask);
}

qsizetype HistoryRing::stride() const
{
    return Header + m_figures + (m_figures > SlopesInFirst ? 1 : 0);
}

double HistoryRing::motionValue(qsizetype m, int figure, qint64 atMs) const
{
    const qsizetype base = m * stride();
    const quint64 slope
        = figure < SlopesInFirst
              ? (m_motions.at(base + FirstWord) >> (SlopeShift + 2 * figure)) & 3
              : (m_motions.at(base + Header + m_figures) >> (2 * (figure - SlopesInFirst))) & 3;
    const qint64 dt = atMs - qint64(m_motions.at(base + AtWord));
    return project(doubleOf(m_motions.at(base + Header + figure)), slope, dt);
}

void HistoryRing::startMotion(const double *values, qint64 atMs)
{
    // Exactly one motion more: a ring's motions are few, and bytes() must
    // say what they hold.
    m_motions.reserve(m_motions.size() + stride());
    m_motions.append(quint64(atMs));
    m_motions.append(OpenBit | (quint64(m_appended) & FirstMask));
    for (int f = 0; f < m_figures; ++f)
        m_motions.append(bitsOf(values[f]));
    if (m_figures > SlopesInFirst)
        m_motions.append(0); // the other figures' slopes
}

// True when the last motion gives exactly values at atMs (a motion's second
// sample settles its slopes).
bool HistoryRing::predicted(const double *values, qint64 atMs)
{
    const qsizetype base = (motionCount() - 1) * stride();
    quint64 &first = m_motions[base + FirstWord];
    if (!(first & OpenBit)) {
        for (int f = 0; f < m_figures; ++f) {
            if (!same(motionValue(motionCount() - 1, f, atMs), values[f]))
                return false;
        }
        return true;
    }
    const qint64 dt = atMs - qint64(m_motions.at(base + AtWord));
    quint64 slopes = 0, more = 0;
    for (int f = 0; f < m_figures; ++f) {
        const double v0 = doubleOf(m_motions.at(base + Header + f));
        quint64 s;
        if (same(values[f], v0))
            s = Flat;
        else if (values[f] == project(v0, Falling, dt))
            s = Falling;
        else if (values[f] == project(v0, Rising, dt))
            s = Rising;
        else
            return false;
        if (f < SlopesInFirst)
            slopes |= s << (SlopeShift + 2 * f);
        else
            more |= s << (2 * (f - SlopesInFirst));
    }
    first = (first & FirstMask) | slopes;
    if (m_figures > SlopesInFirst)
        m_motions[base + Header + m_figures] = more;
    return true;
}

void HistoryRing::dropOldMotions()
{
    const qint64 oldest = m_appended - size(); // the oldest sample kept
    if (isDense() && m_denseFrom <= oldest) {
        m_motions = QList<quint64>(); // the dense ring holds every sample kept
        return;
    }
    qsizetype drop = 0;
    while (drop + 1 < motionCount() && motionFirst(drop + 1) <= oldest)
        ++drop;
    if (drop > 0)
        m_motions.remove(0, drop * stride());
}

void HistoryRing::append(const double *values, qint64 atMs)
{
    if (m_figures <= 0 || m_capacity <= 0)
        return;
    if (!isDense()) {
        if (motionCount() > 0 && predicted(values, atMs)) {
            ++m_appended;
            dropOldMotions();
            return;
        }
        // A new motion while they take at most a quarter of the dense ring
        // (a quarter: a ring that goes dense late holds both for a while).
        const qsizetype denseBytes = qsizetype(m_capacity) * m_figures * qsizetype(sizeof(float));
        if ((motionCount() + 1) * stride() * qsizetype(sizeof(quint64)) <= denseBytes / 4) {
            startMotion(values, atMs);
            ++m_appended;
            dropOldMotions();
            return;
        }
        m_denseFrom = m_appended;
        m_dense = QList<float>(qsizetype(m_capacity) * m_figures, 0.0f);
    }
    const qsizetype slot = qsizetype(m_appended % m_capacity) * m_figures;
    for (int f = 0; f < m_figures; ++f)
        m_dense[slot + f] = float(values[f]);
    ++m_appended;
    dropOldMotions();
}

float HistoryRing::at(int figure, int i, qint64 atMs) const
{
    const qint64 n = m_appended - size() + i; // the sample's number
    if (isDense() && n >= m_denseFrom)
        return m_dense.at(qsizetype(n % m_capacity) * m_figures + figure);
    qsizetype m = motionCount() - 1;
    while (m > 0 && motionFirst(m) > n)
        --m;
    return float(motionValue(m, figure, atMs));
}

qsizetype HistoryRing::bytes() const
{
    return m_motions.capacity() * qsizetype(sizeof(quint64))
           + m_dense.capacity() * qsizetype(sizeof(float));
}

} // namespace gatehouse
