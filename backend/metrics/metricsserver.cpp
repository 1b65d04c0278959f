// SPDX-License-Identifier: MIT
#include "metricsserver.h"

#include <redis/userinput.h>

#include <QFile>
#include <QHttpServer>
#include <QHttpServerRequest>
#include <QHttpServerResponse>
#include <QTcpServer>

#include <sys/resource.h>
#include <unistd.h>

namespace gatehouse {

std::optional<MetricsServer::Address> MetricsServer::parseAddress(const QString &text,
                                                                  QString *error)
{
    const auto refuse = [&](const QString &why) -> std::optional<Address> {
        *error = QStringLiteral("--metrics \"%1\" %2; use HOST:PORT, e.g. 127.0.0.1:9187 or "
                                "[::1]:9187 (an IP address; localhost is 127.0.0.1).")
                     .arg(echoed(text), why);
        return std::nullopt;
    };
    QString hostText;
    QString portText;
    if (text.startsWith(QLatin1Char('['))) {
        const qsizetype close = text.indexOf(QLatin1Char(']'));
        if (close < 0 || text.mid(close + 1, 1) != QLatin1String(":"))
            return refuse(QStringLiteral("is not [IPv6]:PORT"));
        hostText = text.mid(1, close - 1);
        portText = text.mid(close + 2);
    } else if (const qsizetype colon = text.lastIndexOf(QLatin1Char(':')); colon >= 0) {
        hostText = text.left(colon);
        portText = text.mid(colon + 1);
        if (hostText.contains(QLatin1Char(':')))
            return refuse(QStringLiteral("has an IPv6 address without brackets"));
    } else {
        portText = text; // a port alone: loopback
    }
    bool ok = false;
    const uint port = portText.toUInt(&ok);
    if (!ok || port > 65535)
        return refuse(QStringLiteral("has no port from 0 to 65535"));
    Address a;
    a.port = quint16(port);
    if (hostText.isEmpty() || hostText == QLatin1String("localhost"))
        a.host = QHostAddress(QHostAddress::LocalHost);
    else if (!a.host.setAddress(hostText))
        return refuse(QStringLiteral("does not name an IP address"));
    return a;
}

bool MetricsServer::isLoopback(const QHostAddress &host)
{
    return host.isLoopback();
}

MetricsServer::MetricsServer(QObject *parent)
    : QObject(parent)
{}

MetricsServer::~MetricsServer() = default;

namespace {

// "127.0.0.1:9187", "[::1]:9187".
QString shown(const MetricsServer::Address &address)
{
    const QString host = address.host.toString();
    return (address.host.protocol() == QAbstractSocket::IPv6Protocol
                ? QLatin1Char('[') + host + QLatin1Char(']')
                : host)
           + QLatin1Char(':') + QString::number(address.port);
}

} // namespace

QString MetricsServer::remoteRefusal(const Address &address)
{
    return QStringLiteral("The metrics endpoint %1 is not a loopback address: its figures name "
                          "keys, and anyone who reaches it reads them. Use 127.0.0.1:PORT, or "
                          "pass --metrics-remote to serve it there anyway.")
        .arg(shown(address));
}

bool MetricsServer::listen(const Address &address, bool allowRemote, QString *error)
{
    close();
    const QString where = shown(address);
    if (!isLoopback(address.host) && !allowRemote) {
        *error = remoteRefusal(address);
        return false;
    }
    auto http = std::make_unique<QHttpServer>();
    // One route for every method: the method is checked here, so that any
    // other than GET gets 405 with Allow rather than 404.
    http->route(QStringLiteral("/metrics"), [this](const QHttpServerRequest &request) {
        if (request.method() != QHttpServerRequest::Method::Get) {
            QHttpServerResponse refused(QByteArrayLiteral("text/plain"),
                                        QByteArrayLiteral("Only GET /metrics is served.\n"),
                                        QHttpServerResponse::StatusCode::MethodNotAllowed);
            refused.setHeader(QByteArrayLiteral("Allow"), QByteArrayLiteral("GET"));
            return refused;
        }
        return QHttpServerResponse(QByteArray(MetricsExposition::ContentType), body());
    });
    http->setMissingHandler([](const QHttpServerRequest &, QHttpServerResponder &&responder) {
        responder.write(QByteArrayLiteral("Not found: only GET /metrics is served.\n"),
                        QByteArrayLiteral("text/plain"),
                        QHttpServerResponder::StatusCode::NotFound);
    });
    // Our own listening socket: its error says why (the port is taken),
    // which QAbstractHttpServer::listen() does not.
    auto *tcp = new QTcpServer(http.get());
    if (!tcp->listen(address.host, address.port)) {
        *error = QStringLiteral("Could not serve metrics on %1: %2%3.")
                     .arg(where, tcp->errorString(),
                          tcp->serverError() == QAbstractSocket::AddressInUseError
                              ? QStringLiteral(" (another process listens there; choose another "
                                               "port, or :0 for a free one)")
                              : QString());
        return false;
    }
    http->bind(tcp);
    m_tcp = tcp;
    m_port = tcp->serverPort();
    m_host = address.host;
    m_http = std::move(http);
    return true;
}

void MetricsServer::close()
{
    m_http.reset();
    m_tcp = nullptr;
    m_port = 0;
}

bool MetricsServer::isListening() const
{
    return m_tcp && m_tcp->isListening();
}

QString MetricsServer::url() const
{
    const QString host = m_host.protocol() == QAbstractSocket::IPv6Protocol
                             ? QLatin1Char('[') + m_host.toString() + QLatin1Char(']')
                             : m_host.toString();
    return QStringLiteral("http://%1:%2/metrics").arg(host).arg(m_port);
}

void MetricsServer::setExposition(const MetricsExposition &exposition)
{
    m_exposition = exposition;
    for (Source &s : m_sources) {
        const QString deployment = s.exposition.deployment;
        s.exposition = exposition;
        s.exposition.deployment = deployment;
        s.rendered.clear();
    }
}

int MetricsServer::addSource(const QString &deployment)
{
    Source s;
    s.exposition = m_exposition;
    s.exposition.deployment = deployment;
    m_sources.append(s);
    return int(m_sources.size() - 1);
}

void MetricsServer::removeSource(int index)
{
    if (index < 0 || index >= m_sources.size())
        return;
    Source &s = m_sources[index];
    s = Source();
    s.removed = true;
}

void MetricsServer::setSourceName(int index, const QString &deployment)
{
    if (index < 0 || index >= m_sources.size() || m_sources.at(index).removed
        || m_sources.at(index).exposition.deployment == deployment)
        return;
    m_sources[index].exposition.deployment = deployment;
    m_sources[index].rendered.clear();
}

MetricsServer::Source &MetricsServer::source(int index)
{
    if (m_sources.isEmpty())
        addSource(QString());
    return m_sources[qBound(0, index, int(m_sources.size() - 1))];
}

void MetricsServer::setSnapshotOf(int index, const Snapshot &snapshot)
{
    Source &s = source(index);
    s.snapshot = snapshot;
    s.haveSnapshot = true;
    s.rendered.clear(); // rendered at the next scrape, not per snapshot
    s.snapshotAge.start();
}

void MetricsServer::clearSnapshotOf(int index)
{
    if (index < 0 || index >= m_sources.size() || m_sources.at(index).removed)
        return;
    Source &s = m_sources[index];
    s.snapshot = Snapshot();
    s.haveSnapshot = false;
    s.rendered.clear();
    s.tickCost = TickCost();
}

void MetricsServer::setTickCostOf(int index, const TickCost &cost)
{
    source(index).tickCost = cost;
}

QByteArray MetricsServer::body()
{
    ++m_scrapes;
    // Each source's own figures (its snapshot's and what its monitor
    // cost), then the process's: one header per family across them all.
    QList<QByteArray> parts;
    for (Source &s : m_sources) {
        if (s.removed)
            continue;
        if (s.haveSnapshot && s.rendered.isEmpty())
            s.rendered = s.exposition.render(s.snapshot);
        ConsoleFigures own;
        own.lastTick = s.tickCost;
        own.snapshotAgeSeconds = s.haveSnapshot ? s.snapshotAge.elapsed() / 1000.0 : -1;
        parts.append(s.rendered + MetricsExposition::renderConsole(own, s.exposition.deployment));
    }
    ConsoleFigures process;
    process.cpuSeconds = processCpuSeconds();
    process.residentBytes = processResidentBytes();
    process.scrapes = m_scrapes;
    parts.append(MetricsExposition::renderConsole(process));
    Q_EMIT scraped();
    // One source and the process share no family: the parts follow one
    // another as they are.
    return parts.size() <= 2 ? parts.join() : MetricsExposition::merge(parts);
}

double processCpuSeconds()
{
    rusage usage{};
    if (getrusage(RUSAGE_SELF, &usage) != 0)
        return -1;
    const auto s = [](const timeval &t) {
        return double(t.tv_sec) + double(t.tv_usec) / 1e6;
    };
    return s(usage.ru_utime) + s(usage.ru_stime);
}

qint64 processResidentBytes()
{
    // statm's second field: resident pages (Linux).
    QFile statm(QStringLiteral("/proc/self/statm"));
    if (!statm.open(QIODevice::ReadOnly))
        return -1;
    const QList<QByteArray> fields = statm.readAll().split(' ');
    bool ok = false;
    const qint64 pages = fields.value(1).toLongLong(&ok);
    return ok ? pages * sysconf(_SC_PAGESIZE) : -1;
}

} // namespace gatehouse
