// SPDX-License-Identifier: MIT
// The job search's expressions: what an operator types, what it finds in a
// row a page lists and in a record read, and the sentence for what is wrong.
#include <monitor/jobquery.h>

#include <QtTest>

using namespace gatehouse;

namespace {

constexpr qint64 Now = 1'800'000'000'000;

JobRow row(const QByteArray &id, const QString &name, qint64 ageMs, const QString &error = {},
           qint64 attempts = -1)
{
    JobRow r;
    r.id = id;
    r.name = name;
    r.atMs = ageMs < 0 ? -1 : Now - ageMs;
    r.error = error;
    r.attempts = attempts;
    return r;
}

// A record as BullMQ's detail shows it: its fields, data parsed.
JobListing bullRecord(const QByteArray &id, const QByteArray &dataJson)
{
    JobListing d;
    d.job = id;
    d.detail = QStringLiteral("{\"id\": \"%1\", \"name\": \"charge\", \"data\": %2}")
                   .arg(QString::fromUtf8(id), QString::fromUtf8(dataJson));
    JobPayload p;
    p.field = QStringLiteral("data");
    p.bytes = dataJson;
    p.decoded = QString::fromUtf8(dataJson);
    d.payloads = {p};
    return d;
}

JobQuery parsed(const QString &text)
{
    QString error;
    const std::optional<JobQuery> q = JobQuery::parse(text, &error);
    if (!q)
        qWarning("%s: %s", qPrintable(text), qPrintable(error));
    return q.value_or(JobQuery());
}

QString refusal(const QString &text)
{
    QString error;
    const std::optional<JobQuery> q = JobQuery::parse(text, &error);
    return q ? QString() : error;
}

} // namespace

class tst_JobQuery : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void rowTermsAreJudgedWithoutTheRecord()
    {
        const JobQuery q = parsed(QStringLiteral("error~etimedout age>1h attempts>=2"));
        QCOMPARE(q.terms.size(), 3);
        QVERIFY(!q.needsDetail());
        const JobRow old = row("7", QStringLiteral("charge"), 2 * 3'600'000,
                               QStringLiteral("connect ETIMEDOUT 10.0.0.3:443"), 3);
        QVERIFY(q.rowMayMatch(old, Now));
        QVERIFY(q.rowSettles(old, Now));
        QVERIFY(q.matches(old, {}, Now));
        const JobRow young = row("8", QStringLiteral("charge"), 10 * 60'000,
                                 QStringLiteral("connect ETIMEDOUT"), 3);
        QVERIFY(!q.rowMayMatch(young, Now)); // 10 minutes is not over an hour
        const JobRow otherError
            = row("9", QStringLiteral("charge"), 2 * 3'600'000, QStringLiteral("card declined"), 3);
        QVERIFY(!q.matches(otherError, {}, Now));
        // An age the library did not record matches no age term.
        QVERIFY(!q.rowMayMatch(row("10", {}, -1, QStringLiteral("ETIMEDOUT"), 3), Now));
    }

    void aPathReadsTheRecordAndItsPayload()
    {
        const JobQuery q = parsed(QStringLiteral("data.customerId = 4411"));
        QVERIFY(q.needsDetail());
        const JobRow r = row("1", QStringLiteral("charge"), 1000);
        QVERIFY(q.rowMayMatch(r, Now));
        QVERIFY(!q.rowSettles(r, Now));
        QVERIFY(q.matches(r, bullRecord("1", "{\"customerId\": 4411, \"plan\": \"gold\"}"), Now));
        QVERIFY(!q.matches(r, bullRecord("1", "{\"customerId\": 4412}"), Now));
        // The value as text in the payload: equal as text.
        QVERIFY(q.matches(r, bullRecord("1", "{\"customerId\": \"4411\"}"), Now));
        // Not read (the job is gone): no match.
        JobListing gone;
        gone.ok = false;
        QVERIFY(!q.matches(r, gone, Now));
        // Deeper, arrays (any element, or by index), contains, numbers.
        const JobListing nested = bullRecord("2", "{\"order\": {\"lines\": [{\"sku\": \"A-1\", "
                                                  "\"qty\": 2}, {\"sku\": \"B-7\", \"qty\": 9}]}}");
        QVERIFY(parsed(QStringLiteral("data.order.lines.sku=B-7")).matches(r, nested, Now));
        QVERIFY(parsed(QStringLiteral("data.order.lines.1.qty>5")).matches(r, nested, Now));
        QVERIFY(!parsed(QStringLiteral("data.order.lines.0.qty>5")).matches(r, nested, Now));
        QVERIFY(parsed(QStringLiteral("data.order~b-7")).matches(r, nested, Now));
        QVERIFY(parsed(QStringLiteral("data.order.lines.sku!=C-0")).matches(r, nested, Now));
        QVERIFY(!parsed(QStringLiteral("data.order.lines.sku!=A-1")).matches(r, nested, Now));
    }

    void aPayloadOnlyTheDecoderReads()
    {
        // Celery's body: base64 in the record, JSON once decoded. The path
        // starts at the payload's field.
        JobListing d;
        d.job = "c1";
        d.detail = QStringLiteral("{\"body\": \"W1s0NDExXSwge30sIHt9XQ==\"}");
        JobPayload p;
        p.field = QStringLiteral("body");
        p.bytes = "W1s0NDExXSwge30sIHt9XQ==";
        p.decoded = QStringLiteral("[[4411], {}, {}]");
        d.payloads = {p};
        const JobRow r = row("c1", QStringLiteral("tasks.charge"), 1000);
        QVERIFY(parsed(QStringLiteral("body.0.0=4411")).matches(r, d, Now));
        QVERIFY(parsed(QStringLiteral("4411")).matches(r, d, Now)); // a word: anywhere
        QVERIFY(!parsed(QStringLiteral("4412")).matches(r, d, Now));
        // A word found in what the page listed needs no record.
        const JobQuery word = parsed(QStringLiteral("tasks.charge"));
        QVERIFY(word.rowSettles(r, Now));
    }

    void quotesAndSpaces()
    {
        const JobQuery q = parsed(QStringLiteral("error ~ \"gold plan\" and name=Mailer"));
        QCOMPARE(q.terms.size(), 2);
        QCOMPARE(q.terms.at(0).value, QStringLiteral("gold plan"));
        QVERIFY(q.matches(row("1", QStringLiteral("Mailer"), 5, QStringLiteral("no Gold Plan")), {},
                          Now));
        QVERIFY(!q.matches(row("1", QStringLiteral("Mailer2"), 5, QStringLiteral("gold plan")), {},
                           Now));
        QCOMPARE(parsed(QStringLiteral("\"a \\\"quoted\\\" word\"")).terms.value(0).value,
                 QStringLiteral("a \"quoted\" word"));
        QVERIFY(parsed(QStringLiteral("id=1234")).matches(row("1234", {}, 5), {}, Now));
        QVERIFY(!parsed(QStringLiteral("id=123")).matches(row("1234", {}, 5), {}, Now));
    }

    void badExpressionsSaySoAndWhere()
    {
        QVERIFY(refusal(QString()).contains(QLatin1String("empty")));
        QVERIFY(refusal(QStringLiteral("=5")).contains(QLatin1String("no field before it")));
        QVERIFY(refusal(QStringLiteral("error~")).contains(QLatin1String("no value after it")));
        QVERIFY(refusal(QStringLiteral("age>soon")).contains(QLatin1String("age>30s")));
        // A bare number could be ms or s: the unit is asked for.
        QVERIFY(refusal(QStringLiteral("age<10")).contains(QLatin1String("has a unit")));
        QVERIFY(refusal(QStringLiteral("age=5m")).contains(QLatin1String("compared with")));
        QVERIFY(refusal(QStringLiteral("name>5")).contains(QLatin1String("compares numbers")));
        QVERIFY(refusal(QStringLiteral("attempts=many")).contains(QLatin1String("a number")));
        QVERIFY(refusal(QStringLiteral("\"open")).contains(QLatin1String("not closed")));
        QVERIFY(refusal(QStringLiteral("data.x=1 \"bad field\"=2"))
                    .contains(QLatin1String("character 10")));
        QVERIFY(refusal(QStringLiteral("a/b=1")).contains(QLatin1String("not a field")));
        // The state is where a search reads: said, not looked for in the record.
        QCOMPARE(refusal(QStringLiteral("name=x state=failed")),
                 QStringLiteral("\"state\" at character 8 is not a term of the search: choose "
                                "the states to read with --state failed (in the console, the "
                                "search bar's list of states)."));
        QVERIFY(refusal(QStringLiteral("data.state=failed")).isEmpty());
        // "or" is not an operator here: said, not searched for as a word.
        QCOMPARE(refusal(QStringLiteral("id=1 or id=2")),
                 QStringLiteral("\"or\" at character 6: terms are joined by \"and\" only (every "
                                "term must hold). Search once per alternative, or quote \"or\" "
                                "to find the word itself."));
        QVERIFY(refusal(QStringLiteral("not name=x")).contains(QLatin1String("\"and\" only")));
        QVERIFY(refusal(QStringLiteral("\"or\"")).isEmpty());
        // A doubled operator points at itself, not at a missing value.
        QVERIFY2(refusal(QStringLiteral("data.customerId ==4411"))
                     .contains(QLatin1String("\"data.customerId==\" at character 1: one operator")),
                 qPrintable(refusal(QStringLiteral("data.customerId ==4411"))));
    }

    // Whatever is typed: an answer, never a crash (a seeded sweep of the
    // characters the grammar gives meaning to).
    void anyInputIsAnswered()
    {
        const QString alphabet = QStringLiteral("ab.=!~<>\" \\01hm-_$");
        QRandomGenerator rng(7);
        for (int i = 0; i < 20000; ++i) {
            QString s;
            const int n = int(rng.bounded(12));
            for (int k = 0; k < n; ++k)
                s += alphabet.at(int(rng.bounded(int(alphabet.size()))));
            QString error;
            const std::optional<JobQuery> q = JobQuery::parse(s, &error);
            QVERIFY2(q || !error.isEmpty(), qPrintable(s));
            if (q)
                q->matches(row("1", QStringLiteral("n"), 5), bullRecord("1", "[1,{\"a\":2}]"), Now);
        }
    }
};

QTEST_GUILESS_MAIN(tst_JobQuery)
#include "tst_jobquery.moc"
