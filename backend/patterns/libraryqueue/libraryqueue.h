// SPDX-License-Identifier: MIT
#pragma once

#include <patterns/patternunit.h>

#include <QJsonArray>
#include <QJsonValue>

namespace gatehouse {

// What the job-library queue units (BullMQ, Bull, Sidekiq, Celery, RQ) have in
// common, as helpers each unit calls: the same CLI verbs and console buttons,
// the same sentences for a batch's reply, the same table columns and JSON
// fields. A library's own layout, scripts and wording stay in its unit.
namespace libraryqueue {

// --- Action inputs ---------------------------------------------------------
// The job an action names: a CLI --job, the console's selected item.
ActionInput jobInput(bool required, const QString &label = QStringLiteral("Job id"));
// A CLI flag without a value (--stuck, --all); never required.
ActionInput flag(const QString &id, const QString &label);
// An optional input with a value (--from).
ActionInput optionalInput(const QString &id, const QString &label);
// Why a request naming both or neither of --job and --<all> cannot be built
// ("queue retry needs either --job ID or --all."); empty when it names one.
QString oneOf(const ActionRequest &r, const QString &verb, const QString &all,
              const QString &jobValue = QStringLiteral("ID"));

// --- requeue and "Requeue all stuck" -----------------------------------------
// Every library's `queue requeue QUEUE (--job ID | --stuck)`: what differs is
// what "stuck" is called, why --older-than means nothing for it, and the call.
struct RequeueSpec
{
    QString jobLabel = QStringLiteral("Job id");
    QString jobValue = QStringLiteral("ID"); // the usage's word for a job: "ID", "TAG"
    QString stuckLabel;                      // "Every stalled job"
    QString olderThanRefusal;                // the sentence for --older-than
    std::function<ScriptCall(const ActionRequest &request)> build;
};
// The CLI's requeue (its inputs job, stuck and older-than, the last only to
// refuse it) and the console's "Requeue all stuck…" button, which builds the
// same call with --stuck.
QList<PatternAction> requeueActions(const RequeueSpec &spec);

// --- The other verbs' shapes (BullMQ's, Bull's, RQ's, Sidekiq's) ---------------
// `queue VERB QUEUE (--job ID | --ALL)`: one job, or every job of a state
// (the call's batch repeats it).
PatternAction jobOrAllAction(const QString &verb, const QString &label, const QString &all,
                             const QString &allLabel,
                             std::function<ScriptCall(const ActionRequest &)> build);
// `queue VERB QUEUE --job ID`: one job, named.
PatternAction oneJobAction(const QString &verb, const QString &label, const QString &objectName,
                           std::function<ScriptCall(const ActionRequest &)> build);
// `queue clean QUEUE --state completed|failed --older-than MS [--count-only]`:
// the finished jobs older than a grace period, counted first when asked.
PatternAction cleanAction(std::function<ScriptCall(const ActionRequest &)> build);
// `queue pause QUEUE` and `queue resume QUEUE`.
PatternAction pauseAction(bool pause, std::function<ScriptCall(const ActionRequest &)> build);
// What a pause or resume script's reply (1 changed, 0 already so) means.
std::function<ReplyMeaning(const RedisValue &)> pauseMeaning(bool pause);
// What clean --count-only's reply {n} means.
std::function<ReplyMeaning(const RedisValue &)> cleanCountMeaning(const QString &state);
// Whether a clean request names the completed jobs (else the failed ones).
bool cleansCompleted(const ActionRequest &r);
// Completes a clean call whose keys and args are set: with --count-only a
// count that writes nothing, else bounded batches of `batch` jobs (action,
// summary, meaning). library: "BullMQ"; itsVerb: "as BullMQ's clean does".
void finishClean(ScriptCall &call, const ActionRequest &r, const QString &library,
                 const QString &itsVerb, int batch);

// --- Replies ---------------------------------------------------------------
// Makes call a batch run: batch jobs per run, repeated while a whole batch
// was done; did is the sentence of its reply (%1 = done).
void batchRun(ScriptCall &call, int batch, const QString &did);
// A batch's reply {examined, done, id...}: "did" with %1 = done, or that
// nothing was to do.
std::function<ReplyMeaning(const RedisValue &)> batchMeaning(const QString &did);
// A one-job reply: 1 is "Job <job> <did>."; another reply the sentence
// refusals gives for it (%1 = the job's printable name), or that it is
// unexpected.
ReplyMeaning jobMeaning(qint64 reply, const QByteArray &job, const QString &did,
                        const QHash<qint64, QString> &refusals);

// --- Objects made of members (a deployment's queues and processes) -----------
// Adds found's members that current lacks, up to 4 pages of them (restarts
// and new queues never grow an object without bound); true when it grew.
bool mergeMembers(PatternObject &current, const PatternObject &found);

// --- Presentation ------------------------------------------------------------
struct ColumnOptions
{
    bool stuckMayBeMore = false; // "3+" while the stuck count is a lower bound
    bool dead = true;            // a dead (failed) count column
    // Why the library has no throughput (it keeps no count of finished
    // jobs): the Throughput cell is "—" with this as its tooltip. Empty: the
    // rise of the counts its throughput chart charts, per minute.
    QString noThroughput;
};
// The queue section's shared columns (one table for every queue pattern):
// key, library, length, in flight, oldest in flight, stuck, dead, throughput,
// counts, status.
QList<Column> columns(const QString &library, ColumnOptions options = {});

enum class LowerBound { FromReading, Exact, Omitted };
struct JsonOptions
{
    bool dead = true; // "deadLength"
    LowerBound stuckLowerBound = LowerBound::FromReading;
};
// The queue fields every library queue writes to the snapshot JSON: keys,
// length, inFlight, deadLength, stuckCount, stuckIsLowerBound,
// oldestInFlightAgeMs, truncated.
void writeJson(const Reading &r, const QJsonArray &keys, QJsonObject &json,
               JsonOptions options = {});

// A job in flight as the console lists it under the table: BullMQ's and
// Bull's active jobs (job, name, age, attempts, lock).
QStringList activeJobHeaders();
QList<QStringList> activeJobRows(const ObjectState &state, qint64 nowMs);
// The job of in-flight item i, as an action's "job" input.
QHash<QString, QByteArray> itemJob(const ObjectState &state, int i);

// Work at risk: 2 + the stuck count, charted by figure; nullopt when none.
std::optional<Attention> stuckAttention(const ObjectState &state, const QString &figure);

// A figure of one of the library's own counts (Reading::counts).
std::function<double(const Reading &, qint64)> countFigure(const QString &state);

// --- Job lists (PatternUnit::jobPage, jobDetail) ------------------------------
// One entry of a page: where it is (its list or set, its index there, its
// score) and what it holds (a job id, or a whole job record).
struct PageEntry
{
    QByteArray key;
    qint64 index = 0;
    QByteArray value;
    QByteArray score; // sorted sets: as the server gave it
};
using PageNext = std::function<JobRead(JobListing page, QList<PageEntry> entries)>;
// A page of count entries from offset of a state held in several lists read
// one after the other (a deployment's queues, a queue and its priority
// lists), each from its left: their lengths first, then only the ranges the
// page needs. next makes the rows.
JobRead pageOfLists(const QString &state, const QList<QByteArray> &lists, qint64 offset, int count,
                    PageNext next);
// The same for one sorted set, by score (highest first when newestFirst),
// with the scores.
JobRead pageOfSet(const QString &state, const QByteArray &zset, bool newestFirst, qint64 offset,
                  int count, PageNext next);
// A list entry's place with the job it held (JobRow::ref), and the detail
// of that entry: LINDEX, shown when it still holds the job (its value
// contains id), else a sentence that it moved on.
QByteArray entryRef(const PageEntry &entry, const QByteArray &id);
struct EntryRef
{
    QByteArray key;
    qint64 index = 0;
    QByteArray id;
};
std::optional<EntryRef> parseEntryRef(const QByteArray &ref);
JobRead entryDetail(const QByteArray &ref, const EntryRef &entry, const QString &where);
// The throughput chart of a library queue: the rise per minute of its
// counts of finished and failed jobs (figures done and failed). A library
// that trims finished jobs as it goes (BullMQ's removeOnComplete, RQ's
// result_ttl) shows what was still counted at each reading.
Chart throughputChart(const QString &done, const QString &failed);
// A listing that says what went wrong reading state.
JobListing failedListing(const QString &state, qint64 offset, const QString &why);
// A job record (JSON) as the detail shows it: indented, cut to
// JobFieldCutBytes (the message says so).
JobListing jsonDetail(const QByteArray &job, const QByteArray &json, const QString &where);
// read, with add run on the listing it ends with (a detail's payloads, taken
// from what the steps read).
JobRead withResult(JobRead read, const std::function<void(JobListing *)> &add);
// The detail's JSON (a record as jsonDetail indents it); undefined when it is
// not JSON (cut, or not a record).
QJsonValue detailJson(const JobListing &detail);
// A time in a job record: epoch seconds (or ms, by magnitude) to ms; -1 when none.
qint64 epochMs(const QJsonValue &v);
qint64 epochMs(double v);

} // namespace libraryqueue

} // namespace gatehouse
