// SPDX-License-Identifier: MIT
// The soak's actions: the lock and the job each fault's CLI actions work on,
// those actions started during a fault, and what they left, judged.
#include "tst_soak.h"

#include <QProcess>
#include <QTest>

#include <sys/prctl.h>

#include <algorithm>
#include <csignal>

bool tst_Soak::plantAction(Deployment &d)
{
    d.actionToken = QString::fromLatin1(newToken(m_rng));
    const quint16 port = masterFor(d, ActionKey);
    const QStringList args{QStringLiteral("-p"), QString::number(port)};
    // Then WAIT: a lock the master took but no replica has could vanish in
    // the next fault's failover, which would look like a release that ran.
    const QByteArray input
        = "SET " + ActionKey + ' ' + d.actionToken.toLatin1() + " PX 600000\nWAIT 1 2000\n";
    const QList<QByteArray> replies = redisCli(args, input).out.split('\n');
    d.actionReplicated
        = d.name == QLatin1String("proxy") || replies.value(1).trimmed().toInt() >= 1;
    return replies.value(0).trimmed() == "OK";
}

// A queue with one job waiting and one in flight (the one the CLI requeues),
// then WAIT as for the lock.
bool tst_Soak::plantJob(Deployment &d)
{
    d.actionJob = QStringLiteral("job-%1").arg(m_rng.generate64(), 0, 16);
    const quint16 port = masterFor(d, JobQueueKey);
    const QByteArray input = "DEL " + JobQueueKey + ' ' + JobProcessingKey + "\nRPUSH "
                             + JobQueueKey + " waiting-job\nRPUSH " + JobProcessingKey + ' '
                             + d.actionJob.toLatin1() + "\nWAIT 1 2000\n";
    const QList<QByteArray> replies
        = redisCli({QStringLiteral("-p"), QString::number(port)}, input).out.split('\n');
    d.jobReplicated = d.name == QLatin1String("proxy") || replies.value(3).trimmed().toInt() >= 1;
    return replies.value(2).trimmed() == "1";
}

// Where the job is now on the master of its slot: copies in the queue and in
// the processing list (both lists hold at most two entries).
bool tst_Soak::readJob(const Deployment &d, const QString &job, int *inQueue, int *inProcessing)
{
    for (int attempt = 0; attempt < 5; ++attempt) {
        const quint16 port = masterFor(d, JobQueueKey);
        if (port == 0) {
            QTest::qWait(500);
            continue;
        }
        const Cli queue = nodeCli(port, {QStringLiteral("LRANGE"), QString::fromLatin1(JobQueueKey),
                                         QStringLiteral("0"), QStringLiteral("-1")});
        const Cli processing
            = nodeCli(port, {QStringLiteral("LRANGE"), QString::fromLatin1(JobProcessingKey),
                             QStringLiteral("0"), QStringLiteral("-1")});
        if (queue.exitCode != 0 || processing.exitCode != 0 || queue.out.startsWith("MOVED")
            || processing.out.startsWith("MOVED")) {
            QTest::qWait(500);
            continue;
        }
        const auto count = [&job](const QByteArray &out) {
            int n = 0;
            for (const QByteArray &line : out.split('\n'))
                n += line.trimmed() == job.toLatin1() ? 1 : 0;
            return n;
        };
        *inQueue = count(queue.out);
        *inProcessing = count(processing.out);
        return true;
    }
    return false;
}

// A job requeue started during the fault: the job is where it was (in
// flight) or where the reply says (back in the queue), exactly once.
QString tst_Soak::jobOutcome(const ActionRun &run, int code, const QString &err, bool *violation)
{
    const auto d = std::find_if(m_deployments.begin(), m_deployments.end(),
                                [&run](const Deployment &x) { return x.name == run.deployment; });
    int inQueue = 0;
    int inProcessing = 0;
    if (d == m_deployments.end() || !readJob(*d, run.job, &inQueue, &inProcessing)) {
        m_failures
            << QStringLiteral("%1: where job %2 is could not be read").arg(run.deployment, run.job);
        return QStringLiteral("job requeue: truth not read");
    }
    const int copies = inQueue + inProcessing;
    const QString where = inQueue == 1 && inProcessing == 0   ? QStringLiteral("in the queue")
                          : inProcessing == 1 && inQueue == 0 ? QStringLiteral("in flight")
                          : copies == 0                       ? QStringLiteral("gone")
                                        : QStringLiteral("%1 copies").arg(copies);
    // Never two copies; never gone once a replica had it (a failover may
    // lose a plant no replica had yet: said so, not counted).
    *violation = copies > 1 || (copies == 0 && run.replicated);
    QString outcome;
    if (code == 0) {
        outcome = QStringLiteral("job requeued: %1").arg(where);
        if (inProcessing == 1 && inQueue == 0)
            outcome += QStringLiteral(" (requeue lost by failover)");
    } else if (code == 3) {
        outcome = QStringLiteral("job not requeued: %1").arg(where);
        *violation = *violation || inQueue > 0; // refused, yet moved
    } else if (err.contains(QLatin1String("may or may not have run"))) {
        outcome = QStringLiteral("job requeue may or may not have run: %1").arg(where);
    } else {
        outcome = QStringLiteral("job requeue failed: %1").arg(where);
        *violation = *violation || inQueue > 0; // "failed" means nothing ran
    }
    if (copies == 0 && !run.replicated)
        outcome += QStringLiteral(" (planted before the fault, not yet on a replica)");
    return outcome;
}

void tst_Soak::startAction(const QString &deployment)
{
    const auto start = [this](ActionRun run, const QStringList &args) {
        run.process = std::make_unique<QProcess>();
        run.process->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGTERM); });
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("REDISCLI_AUTH"));
        run.process->setProcessEnvironment(env);
        run.process->start(QStringLiteral(GATEHOUSE_CLI), args);
        m_actions.push_back(std::move(run));
    };
    for (Deployment &d : m_deployments) {
        if (d.name != deployment || d.actionToken.isEmpty())
            continue;
        start({nullptr, d.name, d.actionToken, {}, d.actionReplicated},
              {QStringLiteral("--url"), d.url, QStringLiteral("lock"), QStringLiteral("release"),
               QString::fromLatin1(ActionKey), QStringLiteral("--token"), d.actionToken});
        if (!d.actionJob.isEmpty())
            start({nullptr, d.name, {}, d.actionJob, d.jobReplicated},
                  {QStringLiteral("--url"), d.url, QStringLiteral("queue"),
                   QStringLiteral("requeue"), QString::fromLatin1(JobQueueKey),
                   QStringLiteral("--job"), d.actionJob});
    }
}

// The actions started during the fault: every lock where it was (the same
// token) or where the reply says (gone after "released"), never another token;
// every job once, where it was or where the reply says (jobOutcome).
void tst_Soak::finishActions(const QHash<QString, QHash<QString, QString>> &truths)
{
    for (ActionRun &run : m_actions) {
        QProcess &p = *run.process;
        waitUntil([&] { return p.state() == QProcess::NotRunning; }, 60000);
        const int code = p.state() == QProcess::NotRunning && p.exitStatus() == QProcess::NormalExit
                             ? p.exitCode()
                             : -1;
        const QString err = QString::fromUtf8(p.readAllStandardError() + p.readAllStandardOutput());
        if (code == -1) {
            p.kill();
            p.waitForFinished(5000);
        }
        if (!run.job.isEmpty()) {
            bool violation = false;
            QString outcome = jobOutcome(run, code, err, &violation);
            if (violation) {
                ++m_actionViolations;
                outcome += QStringLiteral(" VIOLATION");
                m_failures << QStringLiteral("%1: job requeue exit %2 left job %3 %4: %5")
                                  .arg(run.deployment)
                                  .arg(code)
                                  .arg(run.job, outcome, err.trimmed());
            }
            ++m_actionOutcomes[outcome];
            qInfo("soak:   action on %s: job requeue exit %d -> %s (%s)",
                  qPrintable(run.deployment), code, qPrintable(outcome),
                  qPrintable(err.trimmed().section(QLatin1Char('\n'), 0, 0)));
            continue;
        }
        const QHash<QString, QString> &truth = truths.value(run.deployment);
        const QString key = QString::fromLatin1(ActionKey);
        const bool present = truth.contains(key);
        const bool same = present && truth.value(key) == run.token;
        QString outcome;
        bool violation = present && !same;
        if (code == 0) {
            outcome = same ? QStringLiteral("released, lock still held (release lost by failover)")
                           : QStringLiteral("released, gone");
        } else if (code == 3) {
            outcome = QStringLiteral("not released, lock held");
            violation = violation || !present;
        } else if (err.contains(QLatin1String("may or may not have run"))) {
            outcome = same ? QStringLiteral("may or may not have run: held")
                           : QStringLiteral("may or may not have run: gone");
        } else {
            outcome = QStringLiteral("failed (exit %1): %2")
                          .arg(code)
                          .arg(same ? QStringLiteral("held") : QStringLiteral("gone"));
            // "Failed" means nothing ran: a lock gone that a replica had is
            // a release that ran and was reported as not run.
            if (!same && !present && run.replicated)
                violation = true;
            else if (!same && !present)
                outcome += QStringLiteral(" (set before the fault, not yet on a replica)");
        }
        if (violation) {
            ++m_actionViolations;
            outcome += QStringLiteral(" VIOLATION");
            m_failures << QStringLiteral("%1: lock release exit %2 left %3 (token %4, expected %5 "
                                         "or gone): %6")
                              .arg(run.deployment)
                              .arg(code)
                              .arg(key, truth.value(key), run.token, err.trimmed());
        }
        ++m_actionOutcomes[outcome];
        qInfo("soak:   action on %s: lock release exit %d -> %s (%s)", qPrintable(run.deployment),
              code, qPrintable(outcome),
              qPrintable(err.trimmed().section(QLatin1Char('\n'), 0, 0)));
    }
    m_actions.clear();
}
