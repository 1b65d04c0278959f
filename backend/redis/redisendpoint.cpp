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
    if (url.trimmed().startsWith(QLatin1String("redis-sentinel:"), Qt::CaseInsensitive)
        || url.trimmed().startsWith(QLatin1String("rediss-sentinel:"), Qt::CaseInsensitive)) {
        if (error)
            *error = QStringLiteral("Invalid Sentinel URL \"%1\": %2; expected "
                                    "redis-sentinel://[user:password@]host[:port][,host[:port]...]"
                                    "[/db]#master-name (rediss-sentinel:// for TLS).")
                         .arg(shownUrl(url), what);
        return std::nullopt;
    }
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

    const QString givenScheme = trimmed.left(trimmed.indexOf(QLatin1String("://"))).toLower();
    if (givenScheme == QLatin1String("redis-sentinel")
        || givenScheme == QLatin1String("rediss-sentinel"))
        return fromSentinelUrl(trimmed, givenScheme == QLatin1String("rediss-sentinel"), text,
                               error);

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
        // Decoded byte by byte: QUrl's FullyDecoded keeps some sequences
        // (noncharacters such as %EF%BF%BF) encoded, so a path would not
        // survive its own URL form.
        ep.socketPath = QString::fromUtf8(
            QByteArray::fromPercentEncoding(url.path(QUrl::FullyEncoded).toLatin1()));
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

// Sentinel URLs list several hosts, which QUrl does not parse: split by hand.
std::optional<RedisEndpoint> RedisEndpoint::fromSentinelUrl(const QString &trimmed, bool tls,
                                                            const QString &text, QString *error)
{
    RedisEndpoint ep;
    ep.transport = tls ? Transport::Tls : Transport::Tcp;
    QString rest = trimmed.mid(trimmed.indexOf(QLatin1String("://")) + 3);
    const qsizetype hash = rest.indexOf(QLatin1Char('#'));
    if (hash >= 0) {
        ep.sentinelMaster = QUrl::fromPercentEncoding(rest.mid(hash + 1).toUtf8());
        rest = rest.left(hash);
        if (ep.sentinelMaster.isEmpty())
            return fail(error, text, QStringLiteral("the master's name after # is empty"));
    }
    if (rest.contains(QLatin1Char('?')))
        return fail(error, text, QStringLiteral("query parameters are not supported here"));
    const qsizetype slash = rest.indexOf(QLatin1Char('/'));
    QString path = slash >= 0 ? rest.mid(slash + 1) : QString();
    QString authority = slash >= 0 ? rest.left(slash) : rest;
    if (!path.isEmpty() && !parseDb(path, &ep.db))
        return fail(error, text,
                    QStringLiteral("database \"%1\" is not a number >= 0").arg(echoed(path)));
    const qsizetype at = authority.lastIndexOf(QLatin1Char('@'));
    if (at >= 0) {
        const QString userInfo = authority.left(at);
        authority = authority.mid(at + 1);
        const qsizetype colon = userInfo.indexOf(QLatin1Char(':'));
        ep.user = QUrl::fromPercentEncoding(userInfo.left(colon).toUtf8());
        if (colon >= 0)
            ep.password = QUrl::fromPercentEncoding(userInfo.mid(colon + 1).toUtf8());
    }
    if (authority.isEmpty())
        return fail(error, text, QStringLiteral("no sentinel address is given"));
    for (const QString &part : authority.split(QLatin1Char(','))) {
        QString host = part.trimmed();
        quint16 port = 26379;
        const qsizetype colon = host.lastIndexOf(QLatin1Char(':'));
        const bool bracketed = host.startsWith(QLatin1Char('['));
        if (colon >= 0 && (!bracketed || host.lastIndexOf(QLatin1Char(']')) < colon)) {
            bool ok = false;
            const uint p = host.mid(colon + 1).toUInt(&ok);
            if (!ok || p == 0 || p > 65535)
                return fail(error, text,
                            QStringLiteral("\"%1\" has no valid port (1-65535)").arg(echoed(part)));
            port = quint16(p);
            host = host.left(colon);
        }
        if (bracketed && host.endsWith(QLatin1Char(']')))
            host = host.mid(1, host.size() - 2);
        if (host.isEmpty())
            return fail(error, text,
                        QStringLiteral("sentinel address \"%1\" has no host").arg(echoed(part)));
        const QString address = host.contains(QLatin1Char(':'))
                                    ? QStringLiteral("[%1]:%2").arg(host).arg(port)
                                    : QStringLiteral("%1:%2").arg(host).arg(port);
        if (!ep.sentinels.contains(address))
            ep.sentinels.append(address);
        if (ep.sentinels.size() == 1) {
            ep.host = host;
            ep.port = port;
        }
    }
    return ep;
}

RedisEndpoint RedisEndpoint::sentinelEndpoint(qsizetype i) const
{
    RedisEndpoint ep = nodeEndpoint(sentinels.value(i));
    ep.user = sentinelUser;
    ep.password = sentinelPassword;
    ep.db = 0; // a sentinel has no databases
    return ep;
}

RedisEndpoint RedisEndpoint::nodeEndpoint(const QString &hostPort) const
{
    RedisEndpoint ep = *this;
    ep.sentinels.clear();
    ep.sentinelMaster.clear();
    ep.sentinelUser.clear();
    ep.sentinelPassword.clear();
    ep.discoverTopology = false;
    const qsizetype colon = hostPort.lastIndexOf(QLatin1Char(':'));
    QString host = hostPort.left(colon);
    if (host.startsWith(QLatin1Char('[')) && host.endsWith(QLatin1Char(']')))
        host = host.mid(1, host.size() - 2);
    if (ep.sniName.isEmpty() && ep.transport == Transport::Tls)
        ep.sniName = this->host; // verified as the name the operator gave
    ep.host = host;
    ep.port = quint16(hostPort.mid(colon + 1).toUInt());
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
    if (isSentinel()) {
        QString url = transport == Transport::Tls ? QStringLiteral("rediss-sentinel://")
                                                  : QStringLiteral("redis-sentinel://");
        if (!user.isEmpty())
            url += QString::fromUtf8(QUrl::toPercentEncoding(user)) + QLatin1Char('@');
        url += sentinels.join(QLatin1Char(','));
        if (db != 0)
            url += QLatin1Char('/') + QString::number(db);
        return url + QLatin1Char('#') + QString::fromUtf8(QUrl::toPercentEncoding(sentinelMaster));
    }
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
