// SPDX-License-Identifier: MIT
#include <redis/printabletext.h>
#include <redis/respreader.h>

#include <QTest>

using namespace gatehouse;

class tst_RespReader : public QObject
{
    Q_OBJECT

private:
    static QList<RedisValue> parseAll(const QByteArray &bytes, qsizetype chunk)
    {
        RespReader reader;
        QList<RedisValue> replies;
        for (qsizetype i = 0; i < bytes.size(); i += chunk) {
            reader.feed(bytes.mid(i, chunk));
            RedisValue v;
            RespReader::Result r;
            while ((r = reader.next(&v)) == RespReader::Result::Reply)
                replies << v;
            if (r == RespReader::Result::ProtocolError)
                break;
        }
        return replies;
    }

private slots:
    void replies_data()
    {
        QTest::addColumn<QByteArray>("wire");
        QTest::addColumn<RedisValue>("expected");

        QTest::newRow("status") << QByteArray("+OK\r\n") << RedisValue::status("OK");
        QTest::newRow("error") << QByteArray("-WRONGTYPE Operation against a key\r\n")
                               << RedisValue::error("WRONGTYPE Operation against a key");
        QTest::newRow("integer") << QByteArray(":-42\r\n") << RedisValue::integer(-42);
        QTest::newRow("big integer") << QByteArray(":9223372036854775807\r\n")
                                     << RedisValue::integer(std::numeric_limits<qint64>::max());
        QTest::newRow("bulk") << QByteArray("$5\r\nhello\r\n") << RedisValue::bulk("hello");
        QTest::newRow("empty bulk") << QByteArray("$0\r\n\r\n") << RedisValue::bulk("");
        QTest::newRow("nil bulk") << QByteArray("$-1\r\n") << RedisValue::nil();
        QTest::newRow("nil array") << QByteArray("*-1\r\n") << RedisValue::nil();
        QTest::newRow("empty array") << QByteArray("*0\r\n") << RedisValue::array({});
        static const char binaryWire[] = "$7\r\na\0b\r\n\xff\xfe\r\n";
        QTest::newRow("binary bulk") << QByteArray(binaryWire, sizeof(binaryWire) - 1)
                                     << RedisValue::bulk(QByteArray("a\0b\r\n\xff\xfe", 7));
        QTest::newRow("nested with error and nil")
            << QByteArray("*3\r\n:1\r\n*2\r\n$1\r\nx\r\n-ERR inner\r\n$-1\r\n")
            << RedisValue::array(
                   {RedisValue::integer(1),
                    RedisValue::array({RedisValue::bulk("x"), RedisValue::error("ERR inner")}),
                    RedisValue::nil()});
        QTest::newRow("deep nesting")
            << QByteArray("*1\r\n*1\r\n*1\r\n*1\r\n:7\r\n")
            << RedisValue::array({RedisValue::array(
                   {RedisValue::array({RedisValue::array({RedisValue::integer(7)})})})});
    }

    void replies()
    {
        QFETCH(QByteArray, wire);
        QFETCH(RedisValue, expected);
        const QList<RedisValue> whole = parseAll(wire, wire.size());
        QCOMPARE(whole.size(), 1);
        QCOMPARE(whole.first(), expected);
    }

    // Any split of the input, down to a byte at a time, gives the same replies.
    void fragmentedByteByByte()
    {
        QByteArray wire;
        wire += "+OK\r\n";
        wire += "*3\r\n:1\r\n*2\r\n$3\r\na\r\n\r\n-ERR x\r\n$-1\r\n";
        wire += QByteArray("$4\r\n\0\r\n\xff\r\n", 10);
        wire += ":12345\r\n";
        const QList<RedisValue> whole = parseAll(wire, wire.size());
        QCOMPARE(whole.size(), 4);
        QCOMPARE(whole.at(1).at(1).at(0).bytes(), QByteArray("a\r\n"));
        QCOMPARE(whole.at(2).bytes(), QByteArray("\0\r\n\xff", 4));
        for (qsizetype chunk : {1, 2, 3, 7}) {
            const QList<RedisValue> pieces = parseAll(wire, chunk);
            QCOMPARE(pieces, whole);
        }
    }

    // A partial reply yields nothing until the last byte arrives.
    void partialReplyWaits()
    {
        RespReader reader;
        const QByteArray wire("$10\r\n0123456789\r\n");
        RedisValue v;
        for (qsizetype i = 0; i + 1 < wire.size(); ++i) {
            reader.feed(wire.mid(i, 1));
            QCOMPARE(reader.next(&v), RespReader::Result::NeedMore);
        }
        reader.feed(wire.right(1));
        QCOMPARE(reader.next(&v), RespReader::Result::Reply);
        QCOMPARE(v.bytes(), QByteArray("0123456789"));
        QCOMPARE(reader.next(&v), RespReader::Result::NeedMore);
    }

    void manyPipelinedRepliesInOrder()
    {
        QByteArray wire;
        const int n = 100000;
        for (int i = 0; i < n; ++i)
            wire += ':' + QByteArray::number(i) + "\r\n";
        RespReader reader;
        reader.feed(wire);
        RedisValue v;
        int count = 0;
        while (reader.next(&v) == RespReader::Result::Reply) {
            QCOMPARE(v.toInteger(), qint64(count));
            ++count;
        }
        QCOMPARE(count, n);
    }

    // Found by fuzz_respreader: a 13-byte header announcing 2^31 elements made
    // the reader allocate them all up front (a bad_alloc through hiredis).
    void hugeArrayHeaderAllocatesNothingUpFront()
    {
        RespReader reader;
        reader.feed(QByteArray("*2147483647\r\n:1\r\n*2\r\n$1\r\na\r\n$-1\r\n"));
        RedisValue v;
        QCOMPARE(reader.next(&v), RespReader::Result::NeedMore);
        reader.reset();
        reader.feed(QByteArray("*3\r\n:1\r\n*2\r\n$1\r\na\r\n$-1\r\n*0\r\n"));
        QCOMPARE(reader.next(&v), RespReader::Result::Reply);
        QCOMPARE(v,
                 RedisValue::array({RedisValue::integer(1),
                                    RedisValue::array({RedisValue::bulk("a"), RedisValue::nil()}),
                                    RedisValue::array({})}));
    }

    void protocolErrorThenReset()
    {
        RespReader reader;
        reader.feed(QByteArray("HTTP/1.1 400 Bad Request\r\n"));
        RedisValue v;
        QCOMPARE(reader.next(&v), RespReader::Result::ProtocolError);
        QVERIFY(!reader.errorString().isEmpty());
        // Stays failed until reset; after reset it parses again.
        reader.feed(QByteArray("+OK\r\n"));
        QCOMPARE(reader.next(&v), RespReader::Result::ProtocolError);
        reader.reset();
        reader.feed(QByteArray("+OK\r\n"));
        QCOMPARE(reader.next(&v), RespReader::Result::Reply);
        QCOMPARE(v, RedisValue::status("OK"));
    }

    void encodeIsBinarySafe()
    {
        const QList<QByteArray> args{"SET", QByteArray("k\0\r\n", 4), QByteArray("\xff\xfe", 2),
                                     QByteArray()};
        const QByteArray wire = encodeCommand(args);
        static const char expected[]
            = "*4\r\n$3\r\nSET\r\n$4\r\nk\0\r\n\r\n$2\r\n\xff\xfe\r\n$0\r\n\r\n";
        QCOMPARE(wire, QByteArray(expected, sizeof(expected) - 1));
        // A command is a RESP array of bulk strings: reading it back gives the arguments.
        const QList<RedisValue> back = parseAll(wire, 3);
        QCOMPARE(back.size(), 1);
        QCOMPARE(back.first().size(), args.size());
        for (qsizetype i = 0; i < args.size(); ++i)
            QCOMPARE(back.first().at(i).bytes(), args.at(i));
    }

    void valueHelpers()
    {
        QCOMPARE(RedisValue::error("NOSCRIPT No matching script").errorCode(),
                 QByteArray("NOSCRIPT"));
        QVERIFY(RedisValue::failed(QStringLiteral("lost")).isError());
        QVERIFY(RedisValue::failed(QStringLiteral("lost")).errorCode().isEmpty());
        bool ok = false;
        QCOMPARE(RedisValue::bulk("123").toInteger(&ok), 123);
        QVERIFY(ok);
        RedisValue::bulk("12x").toInteger(&ok);
        QVERIFY(!ok);
        QCOMPARE(printableBytes(QByteArray("a\0\r\n\xff", 5)), QStringLiteral("a\\x00\\r\\n\\xff"));
    }

    // A library's text (a PHP job class, a queue's name with an accent) is
    // shown as it reads; only what would break a table row is escaped, and
    // bytes that are not UTF-8 as a key's.
    void printableTextReadsAsWritten()
    {
        QCOMPARE(printableText("App\\Jobs\\Block"), QStringLiteral("App\\Jobs\\Block"));
        QCOMPARE(printableText("say \"hi\""), QStringLiteral("say \"hi\""));
        QCOMPARE(printableText("\xc3\x9c"
                               "berweisung"),
                 QString::fromUtf8("\xc3\x9c"
                                   "berweisung"));
        QCOMPARE(printableText("a\nb\tc\x01"), QStringLiteral("a\\nb\\tc\\x01"));
        QCOMPARE(printableText("\xff\\"), QStringLiteral("\\xff\\\\"));
        QCOMPARE(printableText("abcdef", 3), QStringLiteral("abc... (6 bytes)"));
        // A character beyond the BMP is never cut in half.
        QCOMPARE(printableText("a\xf0\x9f\x93\xa6"
                               "b",
                               2),
                 QString::fromUtf8("a\xf0\x9f\x93\xa6... (6 bytes)"));
    }
};

QTEST_GUILESS_MAIN(tst_RespReader)
#include "tst_respreader.moc"
