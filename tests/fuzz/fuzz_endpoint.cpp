// SPDX-License-Identifier: MIT
// libFuzzer target: URL and endpoint parsing on arbitrary strings.
// Properties: no crash; a refused URL says why; a parsed endpoint's URL form
// (displayUrl(), the URL without the password) parses again to the same
// endpoint; the connection flags (EndpointOptions) never crash either, and
// a --url or absolute --socket they accept has a URL form that parses again.

#include "fuzzcheck.h"

#include <redis/endpointoptions.h>
#include <redis/redisendpoint.h>

#include <QCommandLineParser>

using namespace gatehouse;

namespace {

void checkRoundTrip(const RedisEndpoint &ep, const QString &from)
{
    const QString url = ep.displayUrl();
    QString error;
    const std::optional<RedisEndpoint> again = RedisEndpoint::fromUrl(url, &error);
    GATEHOUSE_FUZZ_CHECK(again.has_value(), from + QStringLiteral(" -> ") + url + error);
    GATEHOUSE_FUZZ_CHECK(again->transport == ep.transport, url);
    GATEHOUSE_FUZZ_CHECK(again->db == ep.db, url);
    if (ep.transport == RedisEndpoint::Transport::Unix) {
        GATEHOUSE_FUZZ_CHECK(again->socketPath == ep.socketPath, url);
    } else {
        GATEHOUSE_FUZZ_CHECK(again->host == ep.host, url);
        GATEHOUSE_FUZZ_CHECK(again->port == ep.port, url);
        GATEHOUSE_FUZZ_CHECK(again->user == ep.user, url);
    }
    GATEHOUSE_FUZZ_CHECK(again->displayUrl() == url, url);
    (void)ep.address();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char *>(data), qsizetype(size));
    const QString text = QString::fromUtf8(bytes);

    QString error;
    const std::optional<RedisEndpoint> ep = RedisEndpoint::fromUrl(text, &error);
    if (ep) {
        GATEHOUSE_FUZZ_CHECK(ep->transport == RedisEndpoint::Transport::Unix || ep->port != 0,
                             text);
        GATEHOUSE_FUZZ_CHECK(ep->db >= 0, text);
        checkRoundTrip(*ep, text);
    } else {
        GATEHOUSE_FUZZ_CHECK(!error.isEmpty(), text);
    }

    // The same bytes as a command line: NUL-separated arguments.
    static const EndpointOptions s_options;
    QStringList args{QStringLiteral("gatehouse-cli")};
    for (const QByteArray &arg : bytes.split('\0'))
        args.append(QString::fromUtf8(arg));
    QCommandLineParser parser;
    s_options.addTo(parser);
    if (!parser.parse(args))
        return 0;
    error.clear();
    const std::optional<RedisEndpoint> fromFlags = s_options.endpoint(parser, &error);
    // Flags take a host or a relative socket path as given (checked when
    // connecting, like "/"); a --url or an absolute --socket has a URL form.
    const bool urlForm = parser.isSet(QStringLiteral("url"))
                         || (parser.isSet(QStringLiteral("socket")) && fromFlags
                             && fromFlags->socketPath.startsWith(QLatin1Char('/'))
                             && fromFlags->socketPath.size() > 1);
    if (fromFlags && urlForm)
        checkRoundTrip(*fromFlags, args.join(QLatin1Char(' ')));
    else if (!fromFlags)
        GATEHOUSE_FUZZ_CHECK(!error.isEmpty(), args.join(QLatin1Char(' ')));
    return 0;
}
