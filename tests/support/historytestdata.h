// SPDX-License-Identifier: MIT
#pragma once
// What the history store's tests share: the pattern they write, a fixed
// start of time, keys, and how to look into a history file.

#include <patterns/patternkind.h>

#include <QByteArray>
#include <QFileInfo>
#include <QSqlQuery>
#include <QString>
#include <QVariant>

namespace gatehouse::historytest {

inline const PatternKind limiter{"sliding-window"};
constexpr qint64 MinuteMs = 60 * 1000;
constexpr qint64 HourMs = 3600 * 1000;
// A Monday 00:00:00 UTC, server ms: hours and minutes start on it.
constexpr qint64 T0 = 1763942400000LL;

inline QByteArray keyOf(int i)
{
    return "rl:api:" + QByteArray::number(i);
}

// The file and its write-ahead log.
inline qint64 fileBytes(const QString &path)
{
    return QFileInfo(path).size() + QFileInfo(path + QStringLiteral("-wal")).size();
}

// The `samples` rows of the object keyed key (-1: the query failed).
inline int sampleRows(QSqlQuery &q, const QByteArray &key)
{
    q.prepare(QStringLiteral("SELECT COUNT(*) FROM samples WHERE object = (SELECT "
                             "id FROM objects WHERE key = ?)"));
    q.addBindValue(key);
    return q.exec() && q.next() ? q.value(0).toInt() : -1;
}

} // namespace gatehouse::historytest
