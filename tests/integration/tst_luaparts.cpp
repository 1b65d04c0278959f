// SPDX-License-Identifier: MIT
// The action scripts as the server receives them: lua/ keeps code that several
// scripts share as parts (<folder>/<name>.part.lua), named by a
// "--#include <path>" line, and the build embeds each script with its parts in
// place (lua/CMakeLists.txt). Every embedded script is whole (no include line
// left, each part's text where the script names it) and compiles on a real
// server.

#include <redis/redisclient.h>
#include <redis/redisscript.h>

#include "redisserver.h"

#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTest>

using namespace gatehouse;
using gatehouse::test::call;
using gatehouse::test::RedisServer;

namespace {

const QString Source = QStringLiteral(GATEHOUSE_SOURCE_DIR "/lua/");

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Every embedded script: its path under lua/ ("bullmq/bullmq_promote.lua").
QStringList embeddedScripts()
{
    QStringList out;
    QDirIterator it(QStringLiteral(":/lua"), {QStringLiteral("*.lua")}, QDir::Files,
                    QDirIterator::Subdirectories);
    while (it.hasNext())
        out << it.next().mid(QStringLiteral(":/lua/").size());
    out.sort();
    return out;
}

} // namespace

class tst_LuaParts : public QObject
{
    Q_OBJECT

private slots:
    void everyScriptIsEmbeddedWhole()
    {
        const QStringList scripts = embeddedScripts();
        QVERIFY2(scripts.size() > 50, qPrintable(scripts.join(u' ')));
        static const QRegularExpression include(QStringLiteral("^--#include (\\S+)\\s*$"),
                                                QRegularExpression::MultilineOption);
        int included = 0;
        for (const QString &script : scripts) {
            QVERIFY2(!script.endsWith(QLatin1String(".part.lua")), qPrintable(script));
            const QByteArray embedded = readAll(QStringLiteral(":/lua/") + script);
            QVERIFY2(!embedded.isEmpty(), qPrintable(script));
            QVERIFY2(!include.match(QString::fromUtf8(embedded)).hasMatch(), qPrintable(script));
            const QByteArray source = readAll(Source + script);
            QVERIFY2(!source.isEmpty(), qPrintable(Source + script));
            for (auto m = include.globalMatch(QString::fromUtf8(source)); m.hasNext();) {
                const QString part = m.next().captured(1);
                const QByteArray text = readAll(Source + part).trimmed();
                QVERIFY2(!text.isEmpty(), qPrintable(script + QLatin1String(": ") + part));
                QVERIFY2(embedded.contains(text), qPrintable(script + QLatin1String(": ") + part));
                ++included;
            }
        }
        // The parts are in use (the BullMQ, Bull and key-type checks).
        QVERIFY2(included >= 30, qPrintable(QString::number(included)));
    }

    // A script that does not compile would fail only when an operator runs
    // its action.
    void everyScriptCompiles()
    {
        RedisServer server;
        QVERIFY2(server.start(), qPrintable(server.errorString()));
        auto client = gatehouse::test::connectedClient(server);
        QVERIFY(client);
        for (const QString &script : embeddedScripts()) {
            const QByteArray source = readAll(QStringLiteral(":/lua/") + script);
            const RedisValue sha = call(*client, {"SCRIPT", "LOAD", source});
            QVERIFY2(!sha.isError(), qPrintable(script + QLatin1String(": ") + sha.errorMessage()));
            QCOMPARE(sha.bytes(), RedisScript::fromResource(QFileInfo(script).baseName()).sha1());
        }
        client.reset();
    }
};

QTEST_GUILESS_MAIN(tst_LuaParts)
#include "tst_luaparts.moc"
