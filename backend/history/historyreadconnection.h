// SPDX-License-Identifier: MIT
#pragma once

#include <QSqlDatabase>
#include <QString>

namespace gatehouse::Internal {

// A read-only connection to a history file for the calling thread's one
// read (HistoryStore::read, readEvents), removed after. It needs no write
// access to the file or its directory.
class ReadConnection
{
public:
    explicit ReadConnection(const QString &path);
    ~ReadConnection();
    ReadConnection(const ReadConnection &) = delete;
    ReadConnection &operator=(const ReadConnection &) = delete;

    QSqlDatabase db() const { return QSqlDatabase::database(m_name, false); }
    bool isOpen() const { return m_open; }
    QString error() const { return m_error; }

    // True when the file at path is read as immutable: it lies in a
    // directory this user cannot write, without its -wal and -shm files.
    static bool readsImmutable(const QString &path);
    // Sets db (not open yet) to open the file at path read-only, as an
    // immutable SQLite URI when immutable is true.
    static void configure(QSqlDatabase &db, const QString &path, bool immutable);

private:
    QString m_name;
    bool m_open = false;
    QString m_error;
};

} // namespace gatehouse::Internal
