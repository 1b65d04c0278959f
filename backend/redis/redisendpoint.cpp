// SPDX-License-Identifier: MIT
#include "redisendpoint.h"

#include "userinput.h"

#include <QRegularExpression>
#include <QUrl>
#include <QUrlQuery>

namespace gatehouse {

namespace {

const QString s_expected
    = QStringLiteral("expected redis://[user:password@]host[:port][/db], rediss://... for TLS, "
                     "or unix:///path/to/socket[?db=N]");

bool parseDb(const QString &text, int *db)
{
    bool ok = false;
    const int n = text.toInt(&ok);
    if (!ok || n < 0)
        return false;
    *db = n;
    return true;
}

// The URL as echoed in an error: a password in it shown as "***", cut.
QString shownUrl(const QString &url)
{
    static const QRegularExpression s_password(
        QStringLiteral("^([A-Za-z][A-Za-z0-9+.-]*://[^/@:]*:)[^/]*@"));
    QString shown = url;
    shown.replace(s_password, QStringLiteral("\\1***@"));
    return echoed(shown);
}

std::optional<RedisEndpoint> fail(QString *error, const QString &url, const QString &what)
{
    if (error)
        *error = QStringLiteral("Invalid Redis URL \"%1\": %2; %3.")
                     .arg(shownUrl(url), what, s_expected);
    return std::nullopt;
}

} // namespace

std::optional<RedisEndpoint> RedisEndpoint::fromUrl(const QString &text, QString *error)
{
    // A part of the URL, named in the sentence that already echoes the URL:
    // a long part is not echoed a second time, only its length.
    const auto echoed = [&text](const QString &part) {
        if (text.size() > EchoCutChars && part.size() > 20)
            return QStringLiteral("\u2026 (%1 bytes)").arg(part.toUtf8().size());
        return gatehouse::echoed(part);
    };
    const QString trimmed = text.trimmed();
    if (trimmed.isEmpty())
        return fail(error, text, QStringLiteral("it is empty"));
    if (!trimmed.contains(QLatin1String(":/")))
        return fail(error, text, QStringLiteral("it has no scheme"));

    const QUrl url(trimmed, QUrl::StrictMode);
    const QString scheme = url.scheme().toLower();
    if (!url.isValid()) {
        // QUrl's own message names the offending part ("Invalid port ...").
        return fail(error, text, url.errorString().section(QLatin1Char(';'), 0, 0).toLower());
    }

    RedisEndpoint ep;
    if (scheme == QLatin1String("unix")) {
        ep.transport = Transport::Unix;
        if (!url.host().isEmpty())
            return fail(error, text,
                        QStringLiteral("a unix URL has no host (use three slashes: unix:///path)"));
        ep.socketPath = url.path(QUrl::FullyDecoded);
        if (ep.socketPath.isEmpty() || ep.socketPath == QLatin1String("/"))
            return fail(error, text, QStringLiteral("the socket path is missing"));
        if (!ep.socketPath.startsWith(QLatin1Char('/')))
            return fail(error, text,
                        QStringLiteral("the socket path must be absolute (unix:///path)"));
        const QUrlQuery query(url);
        for (const auto &[key, value] : query.queryItems(QUrl::FullyDecoded)) {
            if (key == QLatin1String("db")) {
                if (!parseDb(value, &ep.db))
                    return fail(
                        error, text,
                        QStringLiteral("database \"%1\" is not a number >= 0").arg(echoed(value)));
            } else {
                return fail(error, text,
                            QStringLiteral("unknown parameter \"%1\"").arg(echoed(key)));
            }
        }
    } else if (scheme == QLatin1String("redis") || scheme == QLatin1String("rediss")) {
        ep.transport = scheme == QLatin1String("rediss") ? Transport::Tls : Transport::Tcp;
        ep.host = url.host(QUrl::FullyDecoded);
        if (ep.host.isEmpty())
            return fail(error, text, QStringLiteral("the host is missing"));
        if (url.port() == 0)
            return fail(error, text, QStringLiteral("port 0 is not a port a server listens on"));
        ep.port = quint16(url.port(6379));
        QString path = url.path(QUrl::FullyDecoded);
        if (path.startsWith(QLatin1Char('/')))
            path.remove(0, 1);
        if (!path.isEmpty() && !parseDb(path, &ep.db))
            return fail(error, text,
                        QStringLiteral("database \"%1\" is not a number >= 0").arg(echoed(path)));
        if (url.hasQuery())
            return fail(error, text, QStringLiteral("query parameters are not supported here"));
        ep.user = url.userName(QUrl::FullyDecoded);
        // redis://:password@host is the default user with a password; a user
        // without a password is allowed (ACL "nopass" users).
        ep.password = url.password(QUrl::FullyDecoded);
    } else if (scheme.isEmpty()) {
        return fail(error, text, QStringLiteral("it has no scheme"));
    } else {
        return fail(error, text, QStringLiteral("unknown scheme \"%1\"").arg(echoed(url.scheme())));
    }
    if (url.hasFragment())
        return fail(error, text, QStringLiteral("a fragment (#...) is not allowed"));
    return ep;
}

QString RedisEndpoint::address() const
{
    if (transport == Transport::Unix)
        return socketPath;
    const QString h
        = host.contains(QLatin1Char(':')) ? QLatin1Char('[') + host + QLatin1Char(']') : host;
    return h + QLatin1Char(':') + QString::number(port);
}

QString RedisEndpoint::displayUrl() const
{
    if (transport == Transport::Unix) {
        QString url
            = QStringLiteral("unix://")
              + QString::fromUtf8(QUrl::toPercentEncoding(socketPath, QByteArrayLiteral("/")));
        if (db != 0)
            url += QStringLiteral("?db=%1").arg(db);
        return url;
    }
    QString url
        = transport == Transport::Tls ? QStringLiteral("rediss://") : QStringLiteral("redis://");
    if (!user.isEmpty())
        url += QString::fromUtf8(QUrl::toPercentEncoding(user)) + QLatin1Char('@');
    // An IPv6 zone ("fe80::1%eth0") is written "%25eth0" in a URL.
    url += host.contains(QLatin1Char(':'))
               ? QLatin1Char('[') + QString(host).replace(QLatin1Char('%'), QLatin1String("%25"))
                     + QLatin1String("]:") + QString::number(port)
               : address();
    if (db != 0)
        url += QLatin1Char('/') + QString::number(db);
    return url;
}

} // namespace gatehouse
