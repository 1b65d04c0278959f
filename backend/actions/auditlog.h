// SPDX-License-Identifier: MIT
#pragma once

#include <QJsonObject>
#include <QList>
#include <QObject>

#include <functional>

namespace gatehouse {

class RedisClient;

// The audit trail of operator actions: a file of JSON lines (one entry per
// line, appended and closed before anyone is told) and, optionally, a stream
// in the watched Redis (XADD ... MAXLEN ~ n, so it cannot grow without bound).
// Lives on the thread of its RedisClient; readTail() may run on any thread.
class AuditLog : public QObject
{
    Q_OBJECT
public:
    explicit AuditLog(RedisClient *client, QObject *parent = nullptr);

    // Default: <AppDataLocation>/audit.jsonl, or $GATEHOUSE_AUDIT_LOG.
    static QString defaultPath();
    void setPath(const QString &path) { m_path = path; }
    QString path() const { return m_path; }
    // An empty key turns the stream off. Dry runs are never streamed.
    void setStream(const QByteArray &key, int maxLength);
    QByteArray stream() const { return m_stream; }

    // Empty when the file can be appended to (its folder made, the file
    // opened, nothing written); otherwise one sentence saying why not.
    QString unwritable() const;
    // Appends the entry to the file and, unless dryRun, to the stream.
    // Returns an empty string, or one sentence saying why the file was not written.
    QString append(const QJsonObject &entry, bool dryRun);

    // At most 1 MiB (bytes) read from the end of the file.
    static constexpr qint64 TailBytes = 1024 * 1024;
    // The last maxEntries entries, newest last, from at most the last TailBytes
    // of the file: a cut first line and lines that are not JSON objects are skipped.
    static QList<QJsonObject> readTail(const QString &path, int maxEntries = 1000);
    // readTail() on a worker thread; handler runs on context's thread, and not
    // at all if context is destroyed first.
    using TailHandler = std::function<void(QList<QJsonObject>)>;
    static void readTailAsync(const QString &path, int maxEntries, QObject *context,
                              TailHandler handler);

private:
    RedisClient *m_client;
    QString m_path;
    QByteArray m_stream;
    int m_streamMaxLength = 10000;
};

} // namespace gatehouse
