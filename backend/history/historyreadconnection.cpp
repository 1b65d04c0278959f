// SPDX-License-Identifier: MIT
#include "historyreadconnection.h"

#include <QFileInfo>
#include <QSqlError>
#include <QUrl>
#include <QUuid>

namespace gatehouse::Internal {

ReadConnection::ReadConnection(const QString &path)
    : m_name(QStringLiteral("gatehouse-history-read-") + QUuid::createUuid().toString())
{
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_name);
    configure(db, path, readsImmutable(path));
    m_open = db.open();
    if (!m_open)
        m_error = db.lastError().text();
}

ReadConnection::~ReadConnection()
{
    {
        QSqlDatabase db = QSqlDatabase::database(m_name, false);
        db.close();
    }
    QSqlDatabase::removeDatabase(m_name);
}

bool ReadConnection::readsImmutable(const QString &path)
{
    // SQLite reads a file in WAL mode through its -shm index, which the
    // first reader makes beside the file. In a directory this user cannot
    // write it cannot be made, and every read fails ("attempt to write a
    // readonly database"). Without the -wal and -shm files no writer has the
    // file open (a writer keeps both while it runs and removes them when it
    // closes the file), so the file alone holds everything: read as
    // immutable, SQLite needs neither index nor locks. A -wal left without
    // its index by a killed writer is not read: the rest of the file is.
    if (QFileInfo(QFileInfo(path).absolutePath()).isWritable())
        return false;
    for (const char *suffix : {"-wal", "-shm"}) {
        if (!QFileInfo(path + QLatin1String(suffix)).isReadable())
            return true;
    }
    return false;
}

void ReadConnection::configure(QSqlDatabase &db, const QString &path, bool immutable)
{
    if (!immutable) {
        db.setDatabaseName(path);
        db.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY;QSQLITE_BUSY_TIMEOUT=2000"));
        return;
    }
    // A URI, so the path is percent-encoded: a '?' or '#' in a directory's
    // name is not taken for the query.
    db.setDatabaseName(
        QUrl::fromLocalFile(QFileInfo(path).absoluteFilePath()).toString(QUrl::FullyEncoded)
        + QStringLiteral("?mode=ro&immutable=1"));
    db.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY;QSQLITE_OPEN_URI"));
}

} // namespace gatehouse::Internal
