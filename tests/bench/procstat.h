// SPDX-License-Identifier: MIT
#pragma once

#include <QByteArray>
#include <QList>

namespace gatehouse::bench {

// The fields of a /proc/<pid>/stat (or task) line after the command name,
// which sits in parentheses and may hold spaces: field 3 of proc(5) (the
// state) is at(0), utime (14) at(11), minflt (10) at(7).
inline QList<QByteArray> procStatFields(const QByteArray &line)
{
    return line.mid(line.lastIndexOf(')') + 2).split(' ');
}

} // namespace gatehouse::bench
