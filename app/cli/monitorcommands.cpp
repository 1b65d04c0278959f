// SPDX-License-Identifier: MIT
#include "monitorcommands.h"

#include <monitor/discovery.h>
#include <monitor/profileverdict.h>
#include <patterns/patternregistry.h>

#include "exitcodes.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QSaveFile>
#include <QTextStream>

namespace gatehouse::cli {

namespace {

// The console's durations ("350 ms", "9.3 min"), in the CLI's text too.
QString ms(qint64 v)
{
    return formatMs(v);
}

QString cell(const QString &s, int width)
{
    return s.size() >= width ? s.left(width - 1) + QLatin1Char(' ') : s.leftJustified(width);
}

} // namespace

SnapshotCommand::SnapshotCommand(const RedisEndpoint &endpoint, Monitor::Options options, bool json,
                                 QObject *parent)
    : Session(endpoint, parent)
    , m_options(std::move(options))
    , m_json(json)
{
    m_options.useEvents = false; // one reading: no subscription
    m_options.singleReading = true;
    m_options.rescanMs = 0;
    m_options.intervalMs = 3600 * 1000; // ticks are driven below
}

void SnapshotCommand::onReady()
{
    m_monitor = std::make_unique<Monitor>(&client(), m_options);
    connect(m_monitor.get(), &Monitor::failed, this, [this](const QString &m) { fail(m); });
    connect(m_monitor.get(), &Monitor::discoveryFinished, this, [this](bool cancelled) {
        // Refused for now (a script running long, data loading): the
        // monitor scans again each second; said once, given up after 60 s.
        if (const QString why = cancelled ? m_monitor->discovery()->cutReason() : QString();
            !why.isEmpty()) {
            constexpr qint64 patienceMs = 60000;
            if (!m_refused.isValid()) {
                m_refused.start();
                QTextStream(stderr) << "gatehouse-cli: the server refuses to list its keys for "
                                       "now (\""
                                    << why.left(200) << "\"); trying again every second for up to "
                                    << patienceMs / 1000 << " s." << Qt::endl;
            } else if (m_refused.elapsed() >= patienceMs) {
                fail(QStringLiteral("The server refused to list its keys for %1 s (\"%2\"): a "
                                    "script still running (SCRIPT KILL stops one that wrote "
                                    "nothing), or data still loading. No snapshot was printed; "
                                    "run it again later.")
                         .arg(patienceMs / 1000)
                         .arg(why.left(200)));
                return;
            }
            m_progress.start(); // it answers: not silent
            return;
        }
        // A scan cut by a node that did not answer: one snapshot is not
        // printed from part of the keyspace.
        if (cancelled) {
            fail(QStringLiteral("The scan of the keyspace was cut: a node did not answer. Run "
                                "it again once every node is up (gatehouse-cli ping lists "
                                "them)."));
            return;
        }
        m_discovered = true;
        m_progress.start();
        m_monitor->refreshNow(); // every object read after the scan, in one tick
    });
    m_progress.start();
    m_progressLine.start();
    // A long scan says how far it is, once a second, on stderr (stdout
    // carries only the snapshot).
    const auto progressed = [this](qint64 scanned, qint64 total) {
        m_progress.start();
        if (m_progressLine.elapsed() < 1000)
            return;
        m_progressLine.start();
        m_progressShown = true;
        QTextStream(stderr) << "gatehouse-cli: scanned " << scanned << " of about "
                            << std::max(scanned, total) << " keys" << Qt::endl;
    };
    connect(m_monitor.get(), &Monitor::discoveryProgress, this, progressed);
    m_silenceCheck.setInterval(1000);
    connect(&m_silenceCheck, &QTimer::timeout, this, &SnapshotCommand::checkSilence);
    m_silenceCheck.start();
    connect(m_monitor.get(), &Monitor::tickFinished, this, &SnapshotCommand::printTick);
    m_monitor->start();
}

void SnapshotCommand::printTick(const Snapshot &s)
{
    if (!m_discovered || isDone())
        return;
    if (client().state() != RedisConnection::State::Ready)
        return; // lost during the reading: the session fails with why
    QTextStream out(stdout);
    if (m_progressShown)
        QTextStream(stderr) << "gatehouse-cli: scanned " << s.scanned << " keys; "
                            << s.objects.size() << " objects found" << Qt::endl;
    if (m_json) {
        out.flush();
        QFile file;
        if (!file.open(stdout, QIODevice::WriteOnly) || !s.writeJson(&file, m_limit)) {
            fail(QStringLiteral("Could not write the snapshot to stdout: %1.")
                     .arg(file.errorString()));
            return;
        }
        file.flush();
    } else {
        printText(s);
    }
    out.flush();
    // Keys this user may not list or read: what could be read is printed,
    // but it is not everything there is (README, "Permissions").
    if (!s.server.complete)
        QTextStream(stderr) << "gatehouse-cli: incomplete: "
                            << s.server.notes.filter(QLatin1String("NOPERM")).join(QLatin1Char(' '))
                            << Qt::endl;
    done(s.server.complete ? ExitOk : ExitFailure);
}

void SnapshotCommand::checkSilence()
{
    // As long as an action waits for its reply (ActionEngine): a reading of
    // tens of thousands of objects takes about a second; SCAN reports progress.
    constexpr qint64 limitMs = 10000;
    qint64 silentMs = m_progress.elapsed();
    if (const qint64 reply = m_monitor->replyAgeMs(); m_discovered && reply >= 0)
        silentMs = std::min(silentMs, reply);
    if (silentMs < limitMs)
        return;
    m_silenceCheck.stop();
    fail(QStringLiteral("%1 stopped answering: no reply for %2 s %3 (the server is stopped, "
                        "asleep in DEBUG SLEEP or busy with a long script, or the network "
                        "stalls); no snapshot was printed.")
             .arg(client().endpoint().address())
             .arg(limitMs / 1000)
             .arg(m_discovered ? QStringLiteral("while reading")
                               : QStringLiteral("while scanning")));
}

void SnapshotCommand::printText(const Snapshot &s)
{
    QTextStream out(stdout);
    for (const NodeStatus &node : s.server.nodes) {
        out << "Server " << node.address << ": "
            << (node.version.isEmpty() ? QStringLiteral("Redis (version unknown)")
                                       : QStringLiteral("Redis ") + node.version)
            << (node.role.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(node.role)) << '\n';
    }
    out << "Time "
        << QDateTime::fromMSecsSinceEpoch(s.server.timeMs).toUTC().toString(Qt::ISODateWithMs)
        << ", clock offset " << s.server.clockOffsetMs << " ms, events "
        << (s.server.eventsLive ? "live" : "polling") << '\n';
    out << "Profile " << s.profile << ": " << s.objects.size() << " objects\n";
    QList<const ObjectState *> sorted;
    for (const ObjectState &o : s.objects)
        sorted.append(&o);
    std::sort(sorted.begin(), sorted.end(), [](const ObjectState *a, const ObjectState *b) {
        return a->object->key < b->object->key;
    });
    // A table per section, its columns the patterns' (SectionColumns); every
    // figure as of the snapshot's time.
    for (const Section &section : PatternRegistry::instance().sections()) {
        const SectionColumns columns(section.id);
        QList<const ObjectState *> rows;
        for (const ObjectState *o : std::as_const(sorted)) {
            if (columns.contains(o->object->kind))
                rows.append(o);
        }
        QList<QStringList> cells;
        QList<int> widths;
        for (const QString &h : columns.headers())
            widths << int(h.size());
        for (const ObjectState *o : std::as_const(rows)) {
            QStringList row;
            for (int c = 0; c < columns.count(); ++c) {
                // Whole up to 100 characters (a library's counts: "wait 9 ·
                // active 1 · paused 0 · prioritized 2 · delayed 5 · …").
                QString text = columns.text(c, *o, s.server.timeMs);
                if (text.size() > 100)
                    text = text.left(99) + QStringLiteral("…");
                widths[c] = std::max(widths.at(c), int(text.size()));
                row << text;
            }
            cells << row;
        }
        out << '\n' << section.title << " (" << rows.size() << ")\n ";
        for (int c = 0; c < columns.count(); ++c)
            out << ' ' << cell(columns.headers().at(c).toUpper(), widths.at(c) + 1);
        out << '\n';
        for (qsizetype r = 0; r < rows.size(); ++r) {
            out << ' ';
            for (int c = 0; c < columns.count(); ++c)
                out << ' ' << cell(cells.at(r).at(c), widths.at(c) + 1);
            // Shown by a name that is not its key ("Sidekiq"): the key,
            // which commands take.
            const PatternObject &object = *rows.at(r)->object;
            const QString key = printableBytes(object.key, 80);
            if (PatternUnit::of(object.kind).displayName(object) != key)
                out << "  key " << key;
            if (!rows.at(r)->reading.isOk())
                out << "  " << rows.at(r)->reading.message;
            out << '\n';
        }
    }
    if (s.candidates && !s.candidates->isEmpty()) {
        out << "\nUnconfirmed (" << s.candidates->size()
            << "): found, but the evidence is too weak to show them; "
               "gatehouse-cli profile accept|reject FAMILY --profile FILE\n";
        for (const Candidate &c : *s.candidates) {
            out << "  " << cell(printableBytes(c.family, 48), 50) << cell(c.kind.id(), 22)
                << c.count << (c.count == 1 ? " instance" : " instances") << ", score " << c.score
                << '/' << AutoDetector::Threshold << '\n';
        }
    }
    if (s.other && !s.other->isEmpty()) {
        qint64 keys = 0;
        for (const OtherFamily &o : *s.other)
            keys += o.keys;
        out << "\nOther keys (" << keys << " in " << s.other->size() << " families)\n";
        for (qsizetype i = 0; i < std::min<qsizetype>(s.other->size(), 20); ++i) {
            const OtherFamily &o = s.other->at(i);
            out << "  " << cell(printableBytes(o.family, 48), 50) << cell(o.kind, 14)
                << cell(QString::fromLatin1(o.type), 8) << o.keys << " keys";
            if (o.estimatedBytes >= 0)
                out << ", ~" << QLocale(QLocale::English).formattedDataSize(o.estimatedBytes);
            if (o.withTtl > 0)
                out << ", TTL " << ms(o.minTtlMs) << " to " << ms(o.maxTtlMs);
            if (o.keysRead < o.keys)
                out << " (TTL and values read for " << o.keysRead << " keys)";
            out << '\n';
        }
        if (s.other->size() > 20)
            out << "  ... " << s.other->size() - 20 << " more families (snapshot --json)\n";
    }
    if (!s.server.notes.isEmpty()) {
        out << "\nNotes\n";
        for (const QString &n : s.server.notes)
            out << "  " << n << '\n';
    }
}

void SuggestCommand::onReady()
{
    m_discovery = std::make_unique<Discovery>(&client(), std::nullopt);
    connect(m_discovery.get(), &Discovery::failed, this, [this](const QString &m) { fail(m); });
    connect(m_discovery.get(), &Discovery::finished, this, [this](bool) {
        if (isDone())
            return;
        const Profile profile = m_discovery->suggestedProfile();
        QTextStream out(stdout);
        out << profile.toJson();
        out.flush();
        for (const QString &note : m_discovery->permissionNotes())
            QTextStream(stderr) << "gatehouse-cli: " << note << Qt::endl;
        if (!m_discovery->complete()) { // keys it may not list or read: not a suggestion
            done(ExitFailure);
            return;
        }
        if (profile.isEmpty())
            QTextStream(stderr) << "gatehouse-cli: no known pattern found in "
                                << m_discovery->scannedKeys() << " keys." << Qt::endl;
        done(profile.isEmpty() ? ExitNothingDone : ExitOk);
    });
    m_discovery->start();
}

ProfileVerdictCommand::ProfileVerdictCommand(const RedisEndpoint &endpoint, bool accept,
                                             QByteArray target, QString file, Profile profile,
                                             QObject *parent)
    : Session(endpoint, parent)
    , m_accept(accept)
    , m_target(std::move(target))
    , m_file(std::move(file))
    , m_profile(std::move(profile))
{
    m_profile.autodetect = true; // the verdicts refine autodetection
}

void ProfileVerdictCommand::onReady()
{
    m_discovery = std::make_unique<Discovery>(&client(), m_profile);
    connect(m_discovery.get(), &Discovery::failed, this, [this](const QString &m) { fail(m); });
    connect(m_discovery.get(), &Discovery::finished, this, [this](bool) {
        if (!isDone())
            decide();
    });
    m_discovery->start();
}

void ProfileVerdictCommand::decide()
{
    const ProfileVerdict v
        = ProfileVerdict::apply(m_profile, m_accept, m_target, m_file, m_discovery->candidates(),
                                m_discovery->objects(), m_discovery->scannedKeys());
    if (v.result != ProfileVerdict::Result::Written) {
        fail(v.message,
             v.result == ProfileVerdict::Result::NothingToDo ? ExitNothingDone : ExitFailure);
        return;
    }
    QTextStream out(stdout);
    out << v.message << '\n';
    out.flush();
    done(ExitOk);
}

} // namespace gatehouse::cli
