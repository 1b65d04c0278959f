// SPDX-License-Identifier: MIT
#include "auditlog.h"

#include <redis/redisclient.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QPointer>
#include <QStandardPaths>
#include <QThreadPool>

#include <algorithm>
#include <utility>

namespace gatehouse {

AuditLog::AuditLog(RedisClient *client, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_path(defaultPath())
{}

QString AuditLog::defaultPath()
{
    const QString env = qEnvironmentVariable("GATEHOUSE_AUDIT_LOG");
    if (!env.isEmpty())
        return env;
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)
           + QStringLiteral("/audit.jsonl");
}

void AuditLog::setStream(const QByteArray &key, int maxLength)
{
    m_stream = key;
    m_streamMaxLength = std::max(1, maxLength);
}

QString AuditLog::unwritable() const
{
    const QFileInfo info(m_path);
    if (info.isDir())
        return tr("The audit log %1 is a folder, not a file.")
            .arg(QDir::toNativeSeparators(m_path));
    if (!QDir().mkpath(info.absolutePath()))
        return tr("Cannot make the audit log's folder %1.")
            .arg(QDir::toNativeSeparators(info.absolutePath()));
    QFile log(m_path);
    if (!log.open(QIODevice::WriteOnly | QIODevice::Append))
        return tr("Cannot write the audit log %1: %2.")
            .arg(QDir::toNativeSeparators(m_path), log.errorString());
    return QString();
}

QString AuditLog::append(const QJsonObject &entry, bool dryRun)
{
    QString error;
    QDir().mkpath(QFileInfo(m_path).absolutePath());
    {
        QFile log(m_path);
        if (!log.open(QIODevice::WriteOnly | QIODevice::Append)
            || log.write(QJsonDocument(entry).toJson(QJsonDocument::Compact) + '\n') < 0
            || !log.flush())
            error = tr("Could not write the audit log %1: %2.")
                        .arg(QDir::toNativeSeparators(m_path), log.errorString());
    } // closed before anyone is told, so readers see the entry
    if (!m_stream.isEmpty() && !dryRun && m_client) {
        QList<QByteArray> xadd{
            "XADD", m_stream, "MAXLEN", "~", QByteArray::number(m_streamMaxLength), "*"};
        for (auto it = entry.constBegin(); it != entry.constEnd(); ++it) {
            xadd << it.key().toUtf8();
            const QJsonValue v = it.value();
            xadd << (v.isString()  ? v.toString().toUtf8()
                     : v.isArray() ? QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact)
                                   : QByteArray::number(qint64(v.toDouble())));
        }
        m_client->command(xadd, this, [](const RedisValue &) {});
    }
    return error;
}

QList<QJsonObject> AuditLog::readTail(const QString &path, int maxEntries)
{
    QList<QJsonObject> entries;
    QFile file(path);
    if (maxEntries <= 0 || !file.open(QIODevice::ReadOnly))
        return entries;
    const qint64 size = file.size();
    const qint64 start = std::max<qint64>(0, size - TailBytes);
    if (start > 0 && !file.seek(start))
        return entries;
    QByteArray tail = file.read(size - start);
    if (start > 0) {
        // The byte before start may end a line; if not, the first line is cut.
        char before = 0;
        const bool lineStart = file.seek(start - 1) && file.getChar(&before) && before == '\n';
        if (!lineStart) {
            const qsizetype nl = tail.indexOf('\n');
            tail = nl < 0 ? QByteArray() : tail.mid(nl + 1);
        }
    }
    const QList<QByteArray> lines = tail.split('\n');
    // Newest last: walk back from the end and stop at maxEntries.
    for (auto it = lines.crbegin(); it != lines.crend() && entries.size() < maxEntries; ++it) {
        if (it->trimmed().isEmpty())
            continue;
        const QJsonDocument doc = QJsonDocument::fromJson(*it);
        if (doc.isObject())
            entries.append(doc.object());
    }
    std::reverse(entries.begin(), entries.end());
    return entries;
}

void AuditLog::readTailAsync(const QString &path, int maxEntries, QObject *context,
                             TailHandler handler)
{
    // The relay lives on context's thread and is deleted only by its own
    // delivery, so the worker never posts to a destroyed object; the guard is
    // read on context's thread.
    auto *relay = new QObject;
    relay->moveToThread(context->thread());
    QPointer<QObject> guard(context);
    QThreadPool::globalInstance()->start(
        [path, maxEntries, relay, guard, handler = std::move(handler)]() mutable {
            QList<QJsonObject> entries = readTail(path, maxEntries);
            QMetaObject::invokeMethod(
                relay,
                [relay, guard, handler = std::move(handler), entries = std::move(entries)]() {
                    if (guard && handler)
                        handler(entries);
                    relay->deleteLater();
                },
                Qt::QueuedConnection);
        });
}

} // namespace gatehouse
