// SPDX-License-Identifier: MIT
// The payload decoders (backend/decoders) on payloads the real libraries
// wrote (tests/libraries/decoder_fixtures.py and .js: RQ's zlib-compressed
// pickle, kombu's base64 bodies, BullMQ's msgpack options, a Laravel payload,
// an asynq TaskMessage) and on malformed and hostile input: every one gives a
// sentence, none crashes, hangs or runs anything.

#include <decoders/bodyencoding.h>
#include <decoders/payloaddecoder.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace gatehouse;

namespace {

QByteArray fixture(const char *name)
{
    QFile f(QStringLiteral(GATEHOUSE_DECODER_DATA "/") + QLatin1String(name));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("missing fixture %s", name);
    return f.readAll();
}

// A kombu message's body with the hints the envelope gives.
DecodedPayload kombuBody(const QByteArray &message)
{
    const QJsonObject m = QJsonDocument::fromJson(message).object();
    DecodeHints hints;
    hints.contentType = m.value("content-type").toString();
    hints.encoding = m.value("properties").toObject().value("body_encoding").toString();
    return decodePayload(m.value("body").toString().toUtf8(), hints);
}

} // namespace

class tst_Decoders : public QObject
{
    Q_OBJECT
private slots:
    void rqJobDataIsZlibPickle()
    {
        const DecodedPayload d = decodePayload(fixture("rq_job_data.bin"));
        QCOMPARE(d.chain.value(0), QStringLiteral("zlib"));
        QVERIFY2(d.chain.value(1).startsWith("pickle (protocol "), qPrintable(d.chainText()));
        QVERIFY(d.structured);
        // (func, instance, args, kwargs): the function by name, never imported.
        QVERIFY2(d.text.contains("\"rq_app.just_run\""), qPrintable(d.text));
        QVERIFY(d.text.contains("(4411, \"customer\")"));
        QVERIFY(d.text.contains("\"when\": datetime.datetime(2024-05-17T10:30:05.123)"));
        QVERIFY(d.text.contains("\"ratio\": 0.5"));
        QVERIFY(d.text.contains("\"raw\": <2 bytes: 00 01>"));
        QVERIFY(d.text.contains("set {") || d.text.contains("set {\"a\", \"b\"}")
                || d.text.contains("set {\"b\", \"a\"}"));
        QVERIFY(d.note.isEmpty());
        // The same tree as JSON, for job search's paths: data.2.0 is the
        // first argument, data.3.ratio a keyword argument.
        QVERIFY(d.json.isArray());
        const QJsonArray data = d.json.toArray();
        QCOMPARE(data.size(), 4);
        QCOMPARE(data.at(0).toString(), QStringLiteral("rq_app.just_run"));
        QVERIFY(data.at(1).isNull());
        QCOMPARE(data.at(2).toArray().at(0).toDouble(), 4411.0);
        QCOMPARE(data.at(2).toArray().at(1).toString(), QStringLiteral("customer"));
        QCOMPARE(data.at(3).toObject().value(QStringLiteral("ratio")).toDouble(), 0.5);
    }

    // Python's one-element tuple keeps its comma, as Python writes it.
    void oneElementTupleKeepsItsComma()
    {
        // PROTO 2, BINUNICODE "a", TUPLE1, STOP.
        const QByteArray pickle = QByteArray::fromHex("800258010000006185"
                                                      "2e");
        const DecodedPayload d
            = decodePayload(pickle, {QStringLiteral("application/x-python-serialize"), {}});
        QVERIFY2(d.structured, qPrintable(d.note));
        QCOMPARE(d.text, QStringLiteral("(\"a\",)"));
        QCOMPARE(d.json.toArray(), QJsonArray{QStringLiteral("a")});
    }

    void kombuJsonBodyIsBase64Json()
    {
        const DecodedPayload d = kombuBody(fixture("kombu_json_message.json"));
        QCOMPARE(d.chainText(), QStringLiteral("base64 → JSON"));
        // Celery's protocol 2 body: [args, kwargs, embed].
        QVERIFY2(d.text.contains("[2, 3]"), qPrintable(d.text));
        QVERIFY(d.text.contains("\"customer\": 4411"));
        QVERIFY(d.text.contains("\"callbacks\": null"));
    }

    void kombuPickleBodyIsBase64Pickle()
    {
        const DecodedPayload d = kombuBody(fixture("kombu_pickle_message.json"));
        QCOMPARE(d.chain.value(0), QStringLiteral("base64"));
        QVERIFY2(d.chain.value(1).startsWith("pickle"), qPrintable(d.chainText()));
        QVERIFY2(d.text.contains("\"customer\": 4411"), qPrintable(d.text));
    }

    void bullmqOptsAreMsgpack()
    {
        const DecodedPayload d = decodePayload(fixture("bullmq_opts.msgpack"));
        QCOMPARE(d.chainText(), QStringLiteral("msgpack"));
        QVERIFY2(d.text.contains("\"jobId\": \"invoice-4411\""), qPrintable(d.text));
        QVERIFY(d.text.contains("\"type\": \"exponential\""));
        QVERIFY(d.text.contains("\"timestamp\": 1715941805123"));
        QVERIFY(d.text.contains("\"ratio\": 0.25"));
        QVERIFY(d.text.contains("\"removeOnComplete\": true"));
        QVERIFY(d.text.contains("\"parent\": null"));
    }

    void laravelCommandIsPhpInsideJson()
    {
        const DecodedPayload d = decodePayload(fixture("laravel_payload.json"));
        QCOMPARE(d.chainText(), QStringLiteral("JSON → PHP serialize (inside strings)"));
        QVERIFY2(d.text.contains("\"command\": App\\Jobs\\SendInvoice {"), qPrintable(d.text));
        QVERIFY(d.text.contains("customerId (private App\\Jobs\\SendInvoice): 4411"));
        QVERIFY(d.text.contains("queue (protected): \"emails\""));
        QVERIFY(d.text.contains("tries: 3"));
    }

    // A PHP array keyed 0..n-1 is a list, as json_encode writes it, so a
    // search's JSON path reads it as it reads the same data in JSON; any
    // other keys keep it a map.
    void phpListsAreLists()
    {
        const DecodedPayload list
            = decodePayload(R"(a:2:{s:4:"tags";a:2:{i:0;s:1:"a";i:1;s:1:"b";}s:2:"id";i:7;})");
        QCOMPARE(list.chainText(), QStringLiteral("PHP serialize"));
        QCOMPARE(list.json.toObject().value(QLatin1String("tags")).toArray(),
                 (QJsonArray{QStringLiteral("a"), QStringLiteral("b")}));
        const DecodedPayload map = decodePayload(R"(a:2:{i:1;s:1:"a";i:0;s:1:"b";})");
        QVERIFY2(map.json.isObject(), qPrintable(map.text));
        QCOMPARE(map.json.toObject().value(QLatin1String("1")).toString(), QStringLiteral("a"));
        QVERIFY(decodePayload("a:0:{}").json.isArray());
    }

    void asynqTaskIsProtobuf()
    {
        const DecodedPayload d = decodePayload(fixture("asynq_task.pb"));
        QCOMPARE(d.chainText(), QStringLiteral("protobuf (no schema)"));
        QVERIFY2(d.text.contains("1 string: \"email:deliver\""), qPrintable(d.text));
        QVERIFY(d.text.contains("2 string: \"{\\\"user_id\\\": 4411}\""));
        QVERIFY(d.text.contains("5 varint: 25 (sint -13)"));
        QVERIFY(d.text.contains("8 varint: 1800"));
    }

    void gzipAndBase64Gzip()
    {
        DecodedPayload d = decodePayload(fixture("gzip_json.bin"));
        QCOMPARE(d.chainText(), QStringLiteral("gzip → JSON"));
        QVERIFY(d.text.contains("\"order\": 4411"));
        // Base64 without a hint: taken for what it holds.
        d = decodePayload(fixture("gzip_json.b64"));
        QCOMPARE(d.chainText(), QStringLiteral("base64 → gzip → JSON"));
        QVERIFY(d.text.contains("[\"a\", \"b\"]"));
        // Read through its base64: no note of what the text itself is not.
        QVERIFY2(d.note.isEmpty(), qPrintable(d.note));
    }

    void jsonFoldsLongValues()
    {
        const QByteArray longString = "{\"note\":\"" + QByteArray(1000, 'x') + "\"}";
        DecodedPayload d = decodePayload(longString);
        QCOMPARE(d.chainText(), QStringLiteral("JSON"));
        QVERIFY2(d.text.contains("… (800 more characters)"), qPrintable(d.text.left(400)));
        QByteArray list = "[";
        for (int i = 0; i < 500; ++i)
            list += QByteArray::number(i) + (i < 499 ? "," : "]");
        d = decodePayload(list);
        QVERIFY(d.text.contains("… (400 more items)"));
        QVERIFY(d.text.contains("\n  98,\n  99\n  … (400 more items)"));
        QVERIFY(!d.text.contains("\n  100"));
    }

    void plainTextAndBinary()
    {
        DecodedPayload d = decodePayload("hello, world");
        QCOMPARE(d.chainText(), QStringLiteral("text"));
        QCOMPARE(d.text, QStringLiteral("hello, world"));
        QVERIFY(!d.structured);
        d = decodePayload(QByteArray("\xff\xfe\x00\x13\x37", 5));
        QCOMPARE(d.chainText(), QStringLiteral("binary"));
        QVERIFY(d.text.isEmpty());
        QVERIFY(d.note.contains("hex"));
    }

    void pickleNamesGlobalsNeverRunsThem()
    {
        // pickle.dumps of a reduce to os.system: shown as a name and its arguments.
        const QByteArray evil("\x80\x04\x95!\x00\x00\x00\x00\x00\x00\x00\x8c\x05posix\x94\x8c"
                              "\x06system\x94\x93\x94\x8c\x06rm -rf\x94\x85\x94R\x94.",
                              44);
        const DecodedPayload d = decodePayload(evil);
        QVERIFY2(d.structured, qPrintable(d.note));
        QCOMPARE(d.text, QStringLiteral("posix.system(\"rm -rf\")"));
    }

    void refusalsSaySo_data()
    {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<QString>("sentence");
        QTest::newRow("pickle, APPEND to nothing") << QByteArray("\x80\x04"
                                                                 "a.",
                                                                 4)
                                                   << "an opcode finds the stack empty";
        QTest::newRow("persistent id") << QByteArray("\x80\x02X\x01\x00\x00\x00"
                                                     "aQ.",
                                                     10)
                                       << "persistent id";
        QTest::newRow("out-of-band buffer")
            << QByteArray("\x80\x05\x97.", 4) << "out-of-band buffer";
        QTest::newRow("unknown opcode") << QByteArray("\x80\x04\xff.", 4) << "opcode 0xff";
        QTest::newRow("PHP length past the end") << QByteArray("s:99:\"abc\";") << "past the end";
        QTest::newRow("JSON broken") << QByteArray("{\"a\": [1, 2}") << "Not JSON";
        QTest::newRow("zlib broken")
            << QByteArray("\x78\x9c\x01\x02\x03\x04\x05", 7) << "compressed";
    }
    void refusalsSaySo()
    {
        QFETCH(QByteArray, input);
        QFETCH(QString, sentence);
        const DecodedPayload d = decodePayload(input);
        QVERIFY(!d.structured);
        QVERIFY2(d.note.contains(sentence), qPrintable(d.note));
    }

    void hintThatDoesNotFitIsSaid()
    {
        const DecodedPayload d = decodePayload(
            "not base64 at all!", {QStringLiteral("application/json"), QStringLiteral("base64")});
        QVERIFY(d.note.contains("said to be base64"));
        QVERIFY2(d.note.contains("The library says application/json"), qPrintable(d.note));
        QCOMPARE(d.chainText(), QStringLiteral("text"));
    }

    void limitsHold()
    {
        // Nesting past the depth: JSON shown to it, msgpack refused.
        DecodedPayload d = decodePayload(QByteArray(200, '[') + QByteArray(200, ']'));
        QCOMPARE(d.chainText(), QStringLiteral("JSON"));
        QVERIFY(d.text.contains("nested deeper than 64"));
        // Deeper than a JSON reader goes (10,000): shown as text, and why.
        d = decodePayload(QByteArray(10000, '[') + QByteArray(10000, ']'));
        QCOMPARE(d.chainText(), QStringLiteral("text"));
        QVERIFY2(d.note.contains(QLatin1String("JSON")) && d.note.contains(QLatin1String("nested")),
                 qPrintable(d.note));
        QCOMPARE(d.note.count(QLatin1String("JSON")), 1);
        d = decodePayload(QByteArray(5000, '\x91') + QByteArray(1, '\xc0'));
        QVERIFY(!d.structured);
        // A zlib bomb: 10 MiB of zeros inflates to the cap and no further.
        const QByteArray bomb = qCompress(QByteArray(10 * 1024 * 1024, '\0'), 9).mid(4);
        QByteArray inflated;
        bool cut = false;
        QString why;
        QVERIFY(BodyEncoding::inflate(bomb, 1024 * 1024, &inflated, &cut, &why));
        QVERIFY(cut);
        QCOMPARE(inflated.size(), 1024 * 1024);
        d = decodePayload(bomb);
        QVERIFY2(d.note.contains("Inflated past 1024 KiB"), qPrintable(d.note));
        // Values and output: a pickle of 20,000 small ints under a budget of 1,000.
        QByteArray many("\x80\x04]\x94(", 5);
        for (int i = 0; i < 20000; ++i)
            many += "K\x01";
        many += "e.";
        DecodeLimits limits;
        limits.maxNodes = 1000;
        d = decodePayload(many, {}, limits);
        QVERIFY(!d.structured);
        QVERIFY2(d.note.contains("more than 1000 values"), qPrintable(d.note));
        limits = DecodeLimits{};
        limits.maxOutput = 4096;
        limits.foldItems = 1000000;
        d = decodePayload(many, {}, limits);
        QVERIFY(d.structured);
        QVERIFY(d.text.size() < 4096 + 100);
        QVERIFY(d.text.endsWith("(the decoded text is cut at 4 KiB)"));
        // The input cut: only the first maxInput bytes are read.
        d = decodePayload(QByteArray(100 * 1024, 'a'));
        QVERIFY(d.note.contains("Only the first 64 KiB of 102400 bytes"));
    }

    void cyclesAndSharedValues()
    {
        // l = []; l.append(l); pickle.dumps([l, l], 4)
        const QByteArray cyclic("\x80\x04\x95\x0c\x00\x00\x00\x00\x00\x00\x00]\x94(]\x94h\x01"
                                "ah\x01"
                                "e.",
                                23);
        const DecodedPayload d = decodePayload(cyclic);
        QVERIFY2(d.structured, qPrintable(d.note));
        QVERIFY2(d.text.contains("(the value it is inside: a cycle)"), qPrintable(d.text));
    }

    void hexDumpShowsOffsetsBytesAndText()
    {
        const QString dump = hexDump(QByteArray("Gatehouse\x00\x01\x02 payload bytes", 28));
        QCOMPARE(dump.split('\n').first(),
                 QStringLiteral("00000000  47 61 74 65 68 6f 75 73  65 00 01 02 20 70 61 79  "
                                "|Gatehouse... pay|"));
        QVERIFY(hexDump(QByteArray(100, 'x'), 32).endsWith("… 68 more bytes\n"));
    }
};

QTEST_GUILESS_MAIN(tst_Decoders)
#include "tst_decoders.moc"
