// SPDX-License-Identifier: MIT
// The history file's upkeep (HistoryWriter, on the store's thread): a
// minute's ticks folded into per-object rows once it is over, hours past
// full resolution downsampled to one-minute buckets, old buckets dropped and
// the file kept under its size cap.
#include "historywriter.h"

#include "historydownsample.h"
#include "historytime.h"

#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>

#include <algorithm>
#include <limits>
#include <map>

namespace gatehouse::Internal {

void HistoryWriter::fold(qint64 beforeMs)
{
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    QSqlQuery q(db);
    q.setForwardOnly(true);
    q.prepare(QStringLiteral("SELECT t, data FROM recent WHERE t < ? ORDER BY t"));
    q.addBindValue(beforeMs);
    if (!q.exec()) {
        fail(QStringLiteral("SELECT FROM recent"), q.lastError().text());
        return;
    }
    // (minute, object) -> its records, in the table's key order; object 0
    // holds the minute's tick times.
    std::map<qint64, MinuteTicks> ticks;
    std::map<std::pair<qint64, quint32>, QList<ChangeRecord>> records;
    ChangeRecord r;
    while (q.next()) {
        const qint64 t = q.value(0).toLongLong();
        const qint64 minute = floorDiv(t, MinuteMs);
        const QByteArray blob = q.value(1).toByteArray();
        if (blob.isEmpty())
            continue;
        MinuteTicks &m = ticks[minute];
        m.times.append(t);
        m.flags.append(uchar(blob.at(0)));
        const uchar *p = reinterpret_cast<const uchar *>(blob.constData()) + 1;
        const uchar *end = reinterpret_cast<const uchar *>(blob.constData()) + blob.size();
        while (p < end && getRecord(&p, end, &r)) {
            const quint32 id = quint32(r.head);
            r.head = quint64(t - minute * MinuteMs);
            records[{minute, id}].append(r);
        }
    }
    q.finish();
    if (!db.transaction()) {
        fail(QStringLiteral("BEGIN"), db.lastError().text());
        return;
    }
    QSqlQuery insert(db);
    insert.prepare(QStringLiteral("INSERT OR REPLACE INTO samples (minute, object, data) VALUES "
                                  "(?, ?, ?)"));
    const auto insertRow = [&](qint64 minute, quint32 object, const QByteArray &data) {
        insert.bindValue(0, minute);
        insert.bindValue(1, object);
        insert.bindValue(2, data);
        if (insert.exec())
            return true;
        fail(QStringLiteral("INSERT INTO samples"), insert.lastError().text());
        db.rollback();
        return false;
    };
    for (const auto &[minute, m] : ticks) {
        if (!insertRow(minute, 0, encodeTicks(m, minute * MinuteMs)))
            return;
    }
    for (const auto &[at, list] : records) {
        if (!insertRow(at.first, at.second, encodeRecords(list)))
            return;
    }
    QSqlQuery del(db);
    del.prepare(QStringLiteral("DELETE FROM recent WHERE t < ?"));
    del.addBindValue(beforeMs);
    if (!del.exec() || !db.commit()) {
        fail(QStringLiteral("DELETE FROM recent"), del.lastError().text());
        db.rollback();
        return;
    }
    m_oldestRecentMinute = -1;
    if (q.exec(QStringLiteral("SELECT MIN(t) FROM recent")) && q.next() && !q.value(0).isNull())
        m_oldestRecentMinute = floorDiv(q.value(0).toLongLong(), MinuteMs);
}

void HistoryWriter::maintain()
{
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    QSqlQuery q(db);
    // Whole hours whose end is fullResolutionMs old move to buckets.
    const qint64 bucketBefore = floorDiv(m_latestMs - m_options.fullResolutionMs, HourMs);
    qint64 done = std::numeric_limits<qint64>::min();
    for (;;) {
        if (!q.exec(QStringLiteral("SELECT MIN(minute) FROM samples")) || !q.next()
            || q.value(0).isNull())
            break;
        const qint64 hour = floorDiv(q.value(0).toLongLong() * MinuteMs, HourMs);
        q.finish();
        if (hour >= bucketBefore || hour <= done)
            break; // up to date, or the hour could not be moved (said so)
        downsampleHour(hour);
        done = hour;
    }
    // Buckets of hours whose end is bucketRetentionMs old go, and events.
    const qint64 dropBefore = floorDiv(m_latestMs - m_options.bucketRetentionMs, HourMs);
    q.prepare(QStringLiteral("DELETE FROM buckets WHERE hour < ?"));
    q.addBindValue(dropBefore);
    q.exec();
    q.prepare(QStringLiteral("DELETE FROM events WHERE at < ?"));
    q.addBindValue(dropBefore * HourMs);
    q.exec();
    q.finish();
    enforceCap();
    // The WAL back to nothing once a minute: what the cap counts stays put.
    exec(QStringLiteral("PRAGMA wal_checkpoint(TRUNCATE)"));
}

void HistoryWriter::downsampleHour(qint64 hour)
{
    MinuteTicks hourTicks;
    std::map<quint32, TimedRecords> records;
    if (!readHour(hour, &hourTicks, &records))
        return;
    writeHour(hour, hourBuckets(hourTicks, records));
}

bool HistoryWriter::readHour(qint64 hour, MinuteTicks *hourTicks,
                             std::map<quint32, TimedRecords> *recordsOf)
{
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    QSqlQuery q(db);
    q.setForwardOnly(true);
    q.prepare(QStringLiteral("SELECT minute, object, data FROM samples WHERE minute >= ? AND "
                             "minute < ?"));
    q.addBindValue(hour * 60);
    q.addBindValue((hour + 1) * 60);
    if (!q.exec()) {
        fail(QStringLiteral("SELECT FROM samples"), q.lastError().text());
        return false;
    }
    // The hour's ticks, and each object's records (absolute times), both
    // in time order (the key leads with the minute).
    MinuteTicks m;
    QList<ChangeRecord> list;
    // The hour's full ticks first: each starts its objects' states.
    {
        QSqlQuery k(db);
        k.setForwardOnly(true);
        k.prepare(
            QStringLiteral("SELECT t, data FROM keyframes WHERE t >= ? AND t < ? ORDER BY t"));
        k.addBindValue(hour * HourMs);
        k.addBindValue((hour + 1) * HourMs);
        if (k.exec()) {
            while (k.next()) {
                const qint64 t = k.value(0).toLongLong();
                if (!decodeKeyframe(k.value(1).toByteArray(), &list))
                    continue;
                for (const ChangeRecord &r : std::as_const(list))
                    (*recordsOf)[quint32(r.head)].emplace_back(t, r);
            }
        }
    }
    while (q.next()) {
        const qint64 minuteStart = q.value(0).toLongLong() * MinuteMs;
        const quint32 object = q.value(1).toUInt();
        if (object == 0) {
            if (decodeTicks(q.value(2).toByteArray(), minuteStart, &m)) {
                hourTicks->times.append(m.times);
                hourTicks->flags.append(m.flags);
            }
            continue;
        }
        if (!decodeRecords(q.value(2).toByteArray(), &list))
            continue;
        auto &out = (*recordsOf)[object];
        for (const ChangeRecord &r : std::as_const(list))
            out.emplace_back(minuteStart + qint64(r.head), r);
    }
    q.finish();
    for (auto &[object, records] : *recordsOf) // keyframes and minutes, in time order
        std::stable_sort(records.begin(), records.end(),
                         [](const auto &a, const auto &b) { return a.first < b.first; });
    return true;
}

void HistoryWriter::writeHour(qint64 hour, const std::map<quint32, HourBuckets> &objects)
{
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    if (!db.transaction())
        return;
    QSqlQuery insert(db);
    insert.prepare(QStringLiteral("INSERT OR REPLACE INTO buckets (hour, object, data) VALUES "
                                  "(?, ?, ?)"));
    for (const auto &[object, h] : objects) {
        if (h.minutes.isEmpty())
            continue;
        insert.bindValue(0, hour);
        insert.bindValue(1, object);
        insert.bindValue(2, encodeHour(h));
        if (!insert.exec()) {
            fail(QStringLiteral("INSERT INTO buckets"), insert.lastError().text());
            db.rollback();
            return;
        }
    }
    QSqlQuery del(db);
    del.prepare(QStringLiteral("DELETE FROM keyframes WHERE t < ?"));
    del.addBindValue((hour + 1) * HourMs);
    if (!del.exec()) {
        fail(QStringLiteral("DELETE FROM keyframes"), del.lastError().text());
        db.rollback();
        return;
    }
    del.prepare(QStringLiteral("DELETE FROM samples WHERE minute >= ? AND minute < ?"));
    del.addBindValue(hour * 60);
    del.addBindValue((hour + 1) * 60);
    if (!del.exec() || !db.commit()) {
        fail(QStringLiteral("DELETE FROM samples"), del.lastError().text());
        db.rollback();
    }
}

void HistoryWriter::enforceCap()
{
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    QSqlQuery q(db);
    // The file's free pages go back first (deleted `recent` rows and
    // downsampled hours leave them): the file is then what it holds.
    const auto freePages = [&]() -> qint64 {
        qint64 n = 0;
        if (q.exec(QStringLiteral("PRAGMA freelist_count")) && q.next())
            n = q.value(0).toLongLong();
        q.finish();
        return n;
    };
    // incremental_vacuum frees a page per step, and Qt steps a statement
    // without rows once: run again while pages are free.
    const auto vacuum = [&] {
        for (int guard = 0; guard < 1000000 && freePages() > 0; ++guard) {
            if (!q.exec(QStringLiteral("PRAGMA incremental_vacuum")))
                break;
            while (q.next()) {
            }
            q.finish();
        }
    };
    const auto fileBytes = [&]() -> qint64 {
        qint64 pages = 0, size = 0;
        if (q.exec(QStringLiteral("PRAGMA page_count")) && q.next())
            pages = q.value(0).toLongLong();
        if (q.exec(QStringLiteral("PRAGMA page_size")) && q.next())
            size = q.value(0).toLongLong();
        q.finish();
        return pages * size;
    };
    // Headroom for the WAL (twice its limit: a fold may pass it) and the
    // minute being written.
    const qint64 target
        = m_options.capBytes - 2 * walLimitBytes(m_options.capBytes) - m_options.capBytes / 16;
    if (fileBytes() <= target)
        return; // free pages stay for the next minute's `recent` rows
    vacuum();
    for (int guard = 0; guard < 100000 && fileBytes() > target; ++guard) {
        // Oldest first: buckets are older than any sample.
        qint64 bucketHour = -1, sampleMinute = -1;
        if (q.exec(QStringLiteral("SELECT MIN(hour) FROM buckets")) && q.next()
            && !q.value(0).isNull())
            bucketHour = q.value(0).toLongLong();
        q.finish();
        if (bucketHour >= 0) {
            q.prepare(QStringLiteral("DELETE FROM buckets WHERE hour <= ?"));
            q.addBindValue(bucketHour);
        } else {
            if (q.exec(QStringLiteral("SELECT MIN(minute) FROM samples")) && q.next()
                && !q.value(0).isNull())
                sampleMinute = q.value(0).toLongLong();
            q.finish();
            if (sampleMinute < 0)
                break; // only the current minute is left
            // Five minutes at a time: small steps stay close to the cap.
            // (The full ticks of those minutes go with them.)
            q.prepare(QStringLiteral("DELETE FROM keyframes WHERE t < ?"));
            q.addBindValue((sampleMinute + 5) * MinuteMs);
            if (!q.exec())
                break;
            q.prepare(QStringLiteral("DELETE FROM samples WHERE minute < ?"));
            q.addBindValue(sampleMinute + 5);
        }
        if (!q.exec())
            break;
        q.finish();
        vacuum();
    }
}

} // namespace gatehouse::Internal
