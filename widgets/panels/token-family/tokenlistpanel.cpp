// SPDX-License-Identifier: MIT
#include "tokenlistpanel.h"

#include <historyrangebar.h>
#include <patterns/token-family/tokendata.h>
#include <theme.h>

#include <deployment/consolereads.h>
#include <history/historystore.h>

#include <patterns/patternunit.h>
#include <patterns/token-family/tokenfamilyunit.h>

#include <QDateTime>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <qcustomplot.h>

#include <algorithm>

namespace gatehouse {

PanelRegistry::Panel TokenListPanel::registration()
{
    return PanelRegistry::panel<TokenListPanel>(QStringLiteral("tokenList"));
}

TokenListPanel::TokenListPanel(const Context &context, QWidget *parent)
    : ObjectPanel(parent)
    , m_context(context)
    , m_lister(context.reads ? context.reads->newTokenLister(this) : nullptr)
    , m_title(new QLabel(this))
    , m_range(new QLabel(this))
    , m_reload(new QPushButton(tr("Reload"), this))
    , m_revoke(new QPushButton(tr("Revoke selected…"), this))
    , m_tokens(new QTableWidget(0, 4, this))
    , m_flowNote(new QLabel(this))
    , m_flowTitle(new QLabel(this))
    , m_flowPlot(new QCustomPlot(this))
    , m_rangeBar(new HistoryRangeBar(this))
{
    setObjectName(QStringLiteral("tokenListPanel"));
    m_range->setObjectName(QStringLiteral("tokenListRange"));
    m_reload->setObjectName(QStringLiteral("tokenListReload"));
    m_revoke->setObjectName(QStringLiteral("revokeSelectedTokensButton"));
    m_revoke->setProperty("patternAction", QStringLiteral("token.revoke"));
    m_tokens->setObjectName(QStringLiteral("tokenList"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *bar = new QHBoxLayout;
    bar->addWidget(m_title);
    bar->addWidget(m_range, 1);
    bar->addWidget(m_reload);
    bar->addWidget(m_revoke);
    layout->addLayout(bar);
    m_tokens->setHorizontalHeaderLabels(
        {tr("Token"), tr("TTL when read"), tr("Used"), tr("Payload")});
    m_tokens->horizontalHeaderItem(0)->setToolTip(
        tr("The family's prefix and the first characters of the secret: enough to tell tokens "
           "apart, never the secret itself."));
    m_tokens->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_tokens->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_tokens->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_tokens->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_tokens->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_tokens->setWordWrap(false);
    m_tokens->verticalHeader()->hide();
    m_tokens->verticalHeader()->setDefaultSectionSize(m_tokens->fontMetrics().height() + 8);
    m_tokens->setSortingEnabled(false); // key order, as read
    // The list and, beside it, what came and went.
    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_tokens);
    auto *flow = new QWidget(split);
    auto *flowLayout = new QVBoxLayout(flow);
    flowLayout->setContentsMargins(0, 0, 0, 0);
    m_flowNote->setObjectName(QStringLiteral("tokenFlowNote"));
    m_flowNote->setWordWrap(true);
    // Three lines, what the note takes at 1280 px: counted in the pane's
    // minimum, so the page's splitter never squeezes it over the plot.
    m_flowNote->setMinimumHeight(3 * fontMetrics().lineSpacing());
    m_flowNote->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_flowPlot->setObjectName(QStringLiteral("tokenFlowPlot"));
    // At least 160 px of plot (the axis rect) under the legend, above the
    // x axis' ticks and label: a chart one can read at 1280x800.
    m_flowPlot->setMinimumHeight(160 + 6 * fontMetrics().height() + 16);
    m_flowPlot->xAxis->setLabel(tr("seconds (0 = now)"));
    m_flowPlot->yAxis->setLabel(tr("tokens"));
    // The legend in its own row over the data (as the page's charts): it
    // never covers the newest points. The title is a label beside the range
    // bar, not a row of the plot.
    m_flowPlot->legend->setVisible(true);
    m_flowPlot->plotLayout()->insertRow(0);
    auto *legendCell = new QCPLayoutGrid;
    m_flowPlot->plotLayout()->addElement(0, 0, legendCell);
    legendCell->addElement(0, 0, m_flowPlot->legend);
    m_flowPlot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    m_flowPlot->legend->setBorderPen(Qt::NoPen);
    m_flowPlot->plotLayout()->setRowStretchFactor(0, 0.001);
    for (int g = 0; g < 2; ++g) {
        QCPGraph *graph = m_flowPlot->addGraph();
        graph->setLineStyle(QCPGraph::lsStepCenter);
        graph->setName(g == 0 ? tr("issued") : tr("used, revoked or expired"));
    }
    m_rangeBar->setObjectName(QStringLiteral("tokenFlowRange"));
    m_rangeBar->setToolTip(tr("Time range of the issued and consumed chart"));
    m_rangeBar->setEnabled(false); // until a history file is set: live only
    connect(m_rangeBar, &HistoryRangeBar::rangeChanged, this, [this] {
        ++m_readGeneration; // a read under way is for the old range: read again after it
        m_fileFlow.clear();
        m_fileFamily.clear();
        readHistory();
        if (m_family)
            drawFlow();
    });
    // Title and range in one row, the range bar at its own width.
    auto *flowBar = new QHBoxLayout;
    m_flowTitle->setObjectName(QStringLiteral("tokenFlowTitle"));
    m_flowTitle->setText(tr("Issued and consumed per reading"));
    m_flowTitle->setWordWrap(true); // a narrow pane: two lines, never cut
    flowBar->addWidget(m_flowTitle, 1);
    flowBar->addWidget(m_rangeBar);
    flowLayout->addLayout(flowBar);
    flowLayout->addWidget(m_flowPlot, 1);
    flowLayout->addWidget(m_flowNote);
    split->addWidget(flow);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);
    if (m_lister)
        connect(m_lister, &TokenLister::listed, this, &TokenListPanel::showListing);
    connect(m_reload, &QPushButton::clicked, this, &TokenListPanel::reload);
    connect(m_revoke, &QPushButton::clicked, this, &TokenListPanel::revokeSelected);
    connect(m_tokens, &QTableWidget::itemSelectionChanged, this, &TokenListPanel::updateButtons);
    hide();
    updateButtons();
}

void TokenListPanel::setSnapshot(const std::shared_ptr<const Snapshot> &snapshot)
{
    const std::shared_ptr<const Snapshot> last = std::exchange(m_snapshot, snapshot);
    if (!snapshot)
        return;
    const ObjectList &objects = snapshot->objects;
    for (qsizetype i = 0; i < objects.size(); ++i) {
        // A state the monitor did not change is the same shared one.
        if (last && i < last->objects.size() && last->objects.ptr(i) == objects.ptr(i))
            continue;
        if (objects.at(i).object->kind == TokenFamilyUnit::Kind)
            follow(objects.at(i), snapshot->server.timeMs, snapshot->discovering);
    }
    if (m_family && isVisible())
        drawFlow();
}

void TokenListPanel::follow(const ObjectState &family, qint64 atMs, bool discovering)
{
    Followed &f = m_flows[family.object->key];
    const QList<QByteArray> &members = family.object->members;
    if (members.size() > MaxDiffedMembers) {
        f.diffed = false;
        f.members.clear();
        return;
    }
    QSet<QByteArray> now(members.cbegin(), members.cend());
    const bool first = f.members.isEmpty() && f.samples.isEmpty() && f.diffed;
    const bool wasDiffed = f.diffed;
    f.diffed = true;
    // The first sight of a family, the discovery still finding its members,
    // or a family just small enough again: a baseline, not a flow.
    if (!first && !discovering && wasDiffed) {
        Flow flow;
        flow.atMs = atMs;
        for (const QByteArray &m : std::as_const(now))
            flow.issued += f.members.contains(m) ? 0 : 1;
        for (const QByteArray &m : std::as_const(f.members))
            flow.gone += now.contains(m) ? 0 : 1;
        if (flow.issued > 0 || flow.gone > 0) {
            // Into the history file's bucket; a bucket is written once the
            // flow moves past it.
            const qint64 start = atMs - atMs % BucketMs;
            if (f.bucket.atMs > 0 && f.bucket.atMs != start)
                record(family.object->key, std::exchange(f.bucket, Flow{}));
            f.bucket.atMs = start;
            f.bucket.issued += flow.issued;
            f.bucket.gone += flow.gone;
        }
        if (flow.issued > 0 || flow.gone > 0 || f.samples.isEmpty()
            || f.samples.last().atMs < atMs) {
            f.samples.append(flow);
            if (f.samples.size() > MaxSamples)
                f.samples.removeFirst();
        }
    }
    f.members = std::move(now);
}

void TokenListPanel::setHistory(const std::weak_ptr<HistoryStore> &store, const QString &file)
{
    m_store = store;
    m_historyFile = file;
    m_rangeBar->setEnabled(!file.isEmpty());
    readHistory();
}

bool TokenListPanel::historyMode() const
{
    return !m_historyFile.isEmpty() && m_rangeBar->mode() != HistoryRangeBar::Mode::Live;
}

void TokenListPanel::record(const QByteArray &family, const Flow &bucket)
{
    if (const auto store = m_store.lock())
        store->recordEvent(bucket.atMs, family, QStringLiteral("token.flow"),
                           QStringLiteral("%1 %2").arg(bucket.issued).arg(bucket.gone));
}

void TokenListPanel::readHistory()
{
    if (!historyMode() || !m_family || m_readingHistory)
        return;
    const QByteArray key = m_family->object->key;
    const qint64 now = m_snapshot ? m_snapshot->server.timeMs : QDateTime::currentMSecsSinceEpoch();
    const bool custom = m_rangeBar->mode() == HistoryRangeBar::Mode::Custom;
    const qint64 from = custom ? m_rangeBar->customFromMs() : now - m_rangeBar->spanMs();
    const qint64 to = custom ? m_rangeBar->customToMs() : now;
    const QString file = m_historyFile;
    const quint64 generation = ++m_readGeneration;
    m_readingHistory = true;
    auto *watcher = new QFutureWatcher<QList<Flow>>(this);
    connect(watcher, &QFutureWatcher<QList<Flow>>::finished, this,
            [this, watcher, key, generation] {
                watcher->deleteLater();
                m_readingHistory = false;
                if (generation != m_readGeneration)
                    return readHistory(); // the range or family changed meanwhile
                m_fileFlow = watcher->result();
                m_fileFamily = key;
                if (m_family && m_family->object->key == key)
                    drawFlow();
                else
                    readHistory();
            });
    watcher->setFuture(QtConcurrent::run([file, key, from, to]() {
        QString error;
        QList<Flow> flow;
        const QList<HistoryEvent> events
            = HistoryStore::readEvents(file, from, to, key, MaxHistoryEvents, &error)
                  .value_or(QList<HistoryEvent>());
        for (const HistoryEvent &e : events) {
            if (e.kind != QLatin1String("token.flow"))
                continue;
            const QStringList parts = e.text.split(QLatin1Char(' '));
            if (parts.size() != 2)
                continue;
            flow.append({e.atMs, parts.at(0).toLongLong(), parts.at(1).toLongLong()});
        }
        return flow;
    }));
}

void TokenListPanel::drawFlow()
{
    const Followed f = m_flows.value(m_family->object->key);
    const qint64 now = m_snapshot ? m_snapshot->server.timeMs : 0;
    QVector<double> keys, issued, gone;
    double top = 1;
    const bool fromFile = historyMode();
    if (fromFile && m_fileFamily != m_family->object->key) {
        m_fileFlow.clear();
        readHistory();
    }
    // From the file: its buckets, then the one still being summed; on the
    // date axis (local time). Live: each reading, in seconds back from now.
    QList<Flow> samples = fromFile ? m_fileFlow : f.samples;
    if (fromFile && f.bucket.atMs > 0 && (samples.isEmpty() || samples.last().atMs < f.bucket.atMs))
        samples.append(f.bucket);
    for (const Flow &s : std::as_const(samples)) {
        keys.append(fromFile ? double(s.atMs) / 1000.0 : double(s.atMs - now) / 1000.0);
        issued.append(double(s.issued));
        gone.append(double(s.gone));
        top = std::max({top, double(s.issued), double(s.gone)});
    }
    m_flowPlot->graph(0)->setData(keys, issued, true);
    m_flowPlot->graph(1)->setData(keys, gone, true);
    // Buckets from the file stand alone (a quiet bucket is not written): a
    // bar with a dot each, so even one shows. Live readings come every tick.
    for (int g = 0; g < 2; ++g) {
        m_flowPlot->graph(g)->setLineStyle(fromFile ? QCPGraph::lsImpulse : QCPGraph::lsStepCenter);
        m_flowPlot->graph(g)->setScatterStyle(fromFile ? QCPScatterStyle(QCPScatterStyle::ssDisc, 5)
                                                       : QCPScatterStyle());
    }
    const QPalette pal = palette();
    for (int g = 0; g < 2; ++g)
        m_flowPlot->graph(g)->setPen(QPen(theme::series(g, pal), 1.5));
    m_flowPlot->setBackground(pal.brush(QPalette::Base));
    for (QCPAxis *axis : {m_flowPlot->xAxis, m_flowPlot->yAxis}) {
        axis->setBasePen(QPen(pal.color(QPalette::Text)));
        axis->setTickPen(QPen(pal.color(QPalette::Text)));
        axis->setTickLabelColor(pal.color(QPalette::Text));
        axis->setLabelColor(pal.color(QPalette::Text));
    }
    m_flowPlot->legend->setBrush(pal.brush(QPalette::Base));
    m_flowPlot->legend->setTextColor(pal.color(QPalette::Text));
    if (fromFile) {
        const bool custom = m_rangeBar->mode() == HistoryRangeBar::Mode::Custom;
        const qint64 to = custom ? m_rangeBar->customToMs() : now;
        const qint64 from = custom ? m_rangeBar->customFromMs() : now - m_rangeBar->spanMs();
        if (!m_flowPlot->xAxis->ticker().dynamicCast<QCPAxisTickerDateTime>()) {
            auto ticker = QSharedPointer<QCPAxisTickerDateTime>::create();
            ticker->setDateTimeFormat(QStringLiteral("HH:mm\nMMM d"));
            m_flowPlot->xAxis->setTicker(ticker);
            m_flowPlot->xAxis->setLabel(QString());
        }
        m_flowPlot->xAxis->setRange(double(from) / 1000.0, double(to) / 1000.0);
        m_flowTitle->setText(tr("Issued and consumed per %1 s").arg(BucketMs / 1000));
    } else {
        if (m_flowPlot->xAxis->ticker().dynamicCast<QCPAxisTickerDateTime>()) {
            m_flowPlot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
            m_flowPlot->xAxis->setLabel(tr("seconds (0 = now)"));
        }
        m_flowPlot->xAxis->setRange(-15 * 60, 0); // the live 15 minutes
        m_flowTitle->setText(tr("Issued and consumed per reading"));
    }
    m_flowPlot->yAxis->setRange(0, top * 1.2);
    m_flowPlot->replot(QCustomPlot::rpQueuedReplot);
    m_flowNote->setText(
        !f.diffed ? tr("More than %1 tokens: not followed one by one.").arg(MaxDiffedMembers)
        : fromFile
            ? (m_readingHistory ? tr("Reading the history file…")
                                : tr("From the history file, earlier runs included: tokens the "
                                     "monitor found new, and tokens no longer there, summed per "
                                     "%1 s (%2 buckets with a change in the range).")
                                      .arg(BucketMs / 1000)
                                      .arg(m_fileFlow.size()))
            : tr("From the monitor's readings since the console started: tokens it found "
                 "new, and tokens that were no longer there (a new token is seen when a "
                 "scan or a keyspace event finds it)."));
}

void TokenListPanel::setObject(const ObjectState *state)
{
    const bool family = state && state->object->kind == TokenFamilyUnit::Kind;
    if (!family) {
        m_family.reset();
        m_tokens->setRowCount(0);
        hide();
        return;
    }
    const bool same = m_family && m_family->object->key == state->object->key;
    m_family = *state;
    setVisible(true);
    m_title->setText(
        tr("Live tokens of <b>%1</b>").arg(printableBytes(state->object->key, 60).toHtmlEscaped()));
    if (!same) {
        m_tokens->setRowCount(0);
        reload();
        drawFlow();
    } else if (!m_loading && m_listedOk) {
        // "about": the family's live count as the monitor last read it.
        m_range->setText(
            m_complete ? tr("%n live tokens", nullptr, int(m_shown))
                       : tr("%1 of about %2 live tokens")
                             .arg(m_shown)
                             .arg(std::max<qint64>(m_shown, TokenData::of(state->reading).count)));
    }
}

void TokenListPanel::setOffline(const QString &why)
{
    m_offline = why;
    updateButtons();
}

void TokenListPanel::reload()
{
    if (!m_family || !m_lister)
        return;
    m_loading = true;
    m_range->setText(tr("Reading…"));
    m_lister->list(m_family->object, MaxShown);
}

void TokenListPanel::showListing(const TokenListing &listing)
{
    if (!m_family || listing.family != m_family->object->key)
        return;
    m_loading = false;
    // The tokens chosen before stay chosen while they are listed.
    const QList<QByteArray> before = selectedKeys();
    m_tokens->clearSelection();
    m_tokens->setRowCount(int(listing.rows.size()));
    const bool counted = m_family->object->countedTokens;
    for (int r = 0; r < listing.rows.size(); ++r) {
        const TokenRow &row = listing.rows.at(r);
        auto *key = new QTableWidgetItem(TokenLister::masked(row.key, listing.family));
        key->setData(Qt::UserRole, row.key);
        const QString ttl = row.pttlMs == -1 ? tr("no TTL (never expires)") : formatMs(row.pttlMs);
        const QString used
            = counted && row.used >= 0 ? QString::number(row.used) : QStringLiteral("–");
        QString payload = QStringLiteral("–");
        if (row.payloadBytes >= 0)
            payload = tr("%n bytes", nullptr, int(row.payloadBytes));
        else if (row.fields >= 0)
            payload = tr("%n fields", nullptr, int(row.fields));
        auto *ttlItem = new QTableWidgetItem(ttl);
        if (row.pttlMs == -1)
            ttlItem->setToolTip(tr("This token has no TTL: it never expires (a leak)."));
        m_tokens->setItem(r, 0, key);
        m_tokens->setItem(r, 1, ttlItem);
        m_tokens->setItem(r, 2, new QTableWidgetItem(used));
        m_tokens->setItem(r, 3, new QTableWidgetItem(payload));
        for (int c = 1; c < 4; ++c)
            m_tokens->item(r, c)->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        if (before.contains(row.key))
            m_tokens->selectRow(r);
    }
    m_shown = listing.rows.size();
    m_complete = listing.complete;
    m_listedOk = listing.ok;
    if (!listing.ok)
        m_range->setText(listing.message);
    else if (listing.complete)
        m_range->setText(tr("%n live tokens", nullptr, int(m_shown)));
    else
        m_range->setText(
            tr("%1 of about %2 live tokens")
                .arg(m_shown)
                .arg(std::max<qint64>(m_shown, TokenData::of(m_family->reading).count)));
    m_range->setToolTip(tr("Read at %1 by SCAN MATCH %2 (at most %3 shown, %4 keys examined "
                           "at most per node).")
                            .arg(QDateTime::currentDateTime().toString(QStringLiteral("HH:mm:ss")),
                                 printableBytes(TokenLister::matchFor(listing.family), 80))
                            .arg(MaxShown)
                            .arg(TokenLister::ScanCount * TokenLister::MaxScanSteps));
    updateButtons();
}

QList<QByteArray> TokenListPanel::selectedKeys() const
{
    QList<QByteArray> keys;
    QModelIndexList rows = m_tokens->selectionModel()->selectedRows();
    std::sort(rows.begin(), rows.end(),
              [](const QModelIndex &a, const QModelIndex &b) { return a.row() < b.row(); });
    for (const QModelIndex &row : std::as_const(rows)) {
        if (const QTableWidgetItem *cell = m_tokens->item(row.row(), 0))
            keys << cell->data(Qt::UserRole).toByteArray();
    }
    return keys;
}

QList<QByteArray> TokenListPanel::shownKeys() const
{
    QList<QByteArray> keys;
    for (int r = 0; r < m_tokens->rowCount(); ++r)
        keys << m_tokens->item(r, 0)->data(Qt::UserRole).toByteArray();
    return keys;
}

void TokenListPanel::updateButtons()
{
    QString why;
    if (m_context.readOnly)
        why = tr("Read-only mode: actions are disabled (started with --read-only).");
    else if (!m_offline.isEmpty())
        why = m_offline + QLatin1Char(' ') + tr("Actions are disabled until it is back.");
    else if (m_tokens->selectionModel()->selectedRows().isEmpty())
        why = tr("Select one or more tokens in the list first.");
    m_revoke->setEnabled(why.isEmpty());
    m_revoke->setToolTip(why.isEmpty() ? tr("Revoke the selected tokens (one confirmation).")
                                       : why);
}

void TokenListPanel::revokeSelected()
{
    const QList<QByteArray> keys = selectedKeys();
    if (!m_family || keys.isEmpty()) {
        Q_EMIT message(tr("Select one or more tokens in the list first."));
        return;
    }
    // The family's own revoke action: the same checks and script as the
    // Revoke button and "gatehouse-cli token revoke".
    const PatternUnit &unit = PatternUnit::of(m_family->object->kind);
    std::optional<PatternAction> revoke;
    for (const PatternAction &a : unit.actions()) {
        if (a.id == QLatin1String("token.revoke"))
            revoke = a;
    }
    if (!revoke) {
        Q_EMIT message(tr("A %1 does not offer revoke.").arg(unit.title()));
        return;
    }
    QList<QByteArray> families;
    if (m_snapshot) {
        for (const ObjectState &o : m_snapshot->objects) {
            if (o.object->kind == m_family->object->kind)
                families << o.object->key;
        }
    }
    if (!families.contains(m_family->object->key))
        families << m_family->object->key;
    const QString title
        = revoke->label.endsWith(QStringLiteral("…")) ? revoke->label.chopped(1) : revoke->label;
    QList<ScriptCall> calls;
    for (const QByteArray &key : keys) {
        ActionRequest request;
        request.object = m_family->object;
        request.target = key;
        request.shown = *m_family;
        request.families = families;
        const QString why = revoke->check ? revoke->check(request) : QString();
        ScriptCall call = why.isEmpty() ? revoke->build(request) : ScriptCall();
        if (!why.isEmpty() || !call.isValid()) {
            Q_EMIT message(tr("Token %1: %2 Nothing was sent.")
                               .arg(TokenLister::masked(key, m_family->object->key),
                                    why.isEmpty() ? call.refusal : why));
            return;
        }
        call.title = title;
        calls << call;
    }
    Q_EMIT actionsRequested(calls);
}

} // namespace gatehouse
