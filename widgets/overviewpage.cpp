// SPDX-License-Identifier: MIT
#include "overviewpage.h"

#include "chartpanel.h"
#include "overviewtiles.h"
#include "queueactivity.h"
#include "sidelist.h"
#include "theme.h"

#include <alerts/alertengine.h>
#include <patterns/patternregistry.h>

#include <QApplication>
#include <QEvent>
#include <QFutureWatcher>
#include <QLabel>
#include <QListWidget>
#include <QPainter>
#include <QStyledItemDelegate>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <cmath>

namespace gatehouse {

namespace {

constexpr QSize s_sparkSize(80, 20);

// Server notes as HTML: each escaped, then joined by line breaks (escaping
// the joined text would print the breaks as "<br>").
QString escapedNotes(const QStringList &notes)
{
    QStringList escaped;
    escaped.reserve(notes.size());
    for (const QString &n : notes)
        escaped.append(n.toHtmlEscaped());
    return escaped.join(QStringLiteral("<br>"));
}

// Draws an item's sparkline (the polyline in SparklineRole) before its text,
// fresh at every paint: no pixmap and no icon, so nothing is left in
// QPixmapCache as the list is rebuilt.
class SparklineDelegate final : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter *painter, const QStyleOptionViewItem &option,
               const QModelIndex &index) const override
    {
        QStyleOptionViewItem opt = option;
        initStyleOption(&opt, index);
        const QRect spark(opt.rect.left() + 2, opt.rect.center().y() - s_sparkSize.height() / 2,
                          s_sparkSize.width(), s_sparkSize.height());
        const bool selected = opt.state & QStyle::State_Selected;
        if (selected)
            painter->fillRect(opt.rect, opt.palette.brush(QPalette::Highlight));
        opt.rect.setLeft(spark.right() + 6);
        QStyle *style = opt.widget ? opt.widget->style() : QApplication::style();
        style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, opt.widget);
        const QPolygonF line = index.data(OverviewPage::SparklineRole).value<QPolygonF>();
        if (line.size() < 2)
            return;
        painter->save();
        painter->setRenderHint(QPainter::Antialiasing);
        // A series colour, tested for contrast on Base in both palettes (the
        // Highlight colour of a dark palette is about 1.7:1 on its Base).
        painter->setPen(QPen(selected ? opt.palette.color(QPalette::HighlightedText)
                                      : theme::series(0, opt.palette),
                             1.2));
        painter->drawPolyline(line.translated(spark.topLeft()));
        painter->restore();
    }

    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        QSize size = QStyledItemDelegate::sizeHint(option, index);
        size.rwidth() += s_sparkSize.width() + 8;
        size.setHeight(std::max(size.height(), s_sparkSize.height() + 2));
        return size;
    }
};

} // namespace

QPolygonF sparklinePolygon(const QList<QPointF> &points)
{
    QPolygonF line;
    if (points.size() < 2)
        return line;
    double lo = qInf(), hi = -qInf();
    for (const QPointF &p : points) {
        if (std::isnan(p.y()))
            continue;
        lo = std::min(lo, p.y());
        hi = std::max(hi, p.y());
    }
    if (lo > hi)
        return line; // every point unknown
    const double x0 = points.first().x(), x1 = points.last().x();
    const double w = s_sparkSize.width() - 2, h = s_sparkSize.height() - 2;
    for (const QPointF &p : points) {
        if (std::isnan(p.y()))
            continue;
        line << QPointF((p.x() - x0) / std::max(1.0, x1 - x0) * w + 1,
                        h + 1 - (hi > lo ? (p.y() - lo) / (hi - lo) * h : h / 2));
    }
    return line;
}

OverviewPage::OverviewPage(QWidget *parent)
    : QWidget(parent)
    , m_counts(new QLabel(this))
    , m_firing(new QLabel(this))
    , m_tiles(new OverviewTiles(this))
    , m_attention(new QListWidget(this))
    , m_queueChart(new ChartPanel(QStringLiteral("overview"), this))
    , m_activity(std::make_unique<QueueActivity>())
{
    setObjectName(QStringLiteral("overviewPage"));
    auto *layout = new QVBoxLayout(this);
    m_counts->setTextFormat(Qt::RichText);
    m_counts->setWordWrap(true);
    layout->addWidget(m_counts);
    m_firing->setObjectName(QStringLiteral("overviewFiring"));
    m_firing->setTextFormat(Qt::RichText);
    m_firing->setWordWrap(true);
    m_firing->hide();
    connect(m_firing, &QLabel::linkActivated, this, &OverviewPage::alertsRequested);
    layout->addWidget(m_firing);
    // The tiles before everything else: the figures an operator acts on.
    layout->addWidget(m_tiles);
    connect(m_tiles, &OverviewTiles::openRequested, this, &OverviewPage::openRequested);
    // Stuck, in flight and throughput of every queue together, over the
    // range chosen (the server panel goes above it).
    m_queueChart->setObjectName(QStringLiteral("overviewQueueChart"));
    m_queueChart->setHistoryReader(m_activity->reader());
    m_queueChart->showSeries(QueueActivity::Key, tr("Every queue: stuck, in flight and throughput"),
                             QueueActivity::charts());
    // The charts take two thirds of what the figures above leave, the
    // attention list the rest: at 1280x800 plots of about 150 px, and six
    // items listed.
    layout->addWidget(m_queueChart, 2);
    layout->addWidget(new QLabel(tr("Needs attention (click to open):"), this));
    m_attention->setObjectName(QStringLiteral("attention"));
    m_attention->setItemDelegate(new SparklineDelegate(m_attention));
    connect(m_attention, &QListWidget::itemActivated, this, [this](QListWidgetItem *item) {
        Q_EMIT openRequested(item->data(Qt::UserRole).toString(),
                             item->data(Qt::UserRole + 1).toByteArray());
    });
    connect(m_attention, &QListWidget::itemClicked, m_attention, &QListWidget::itemActivated);
    layout->addWidget(m_attention, 1);
    update(Snapshot(), false);
}

OverviewPage::~OverviewPage() = default;

void OverviewPage::record(const std::shared_ptr<const Snapshot> &snapshot)
{
    // A snapshot is never changed once published, so the pool may read it;
    // one sum at a time, a second apart (server time), as the monitor's
    // history samples.
    if (!snapshot || m_summing || snapshot->server.timeMs - m_activity->lastAtMs() < 1000)
        return;
    m_summing = true;
    auto *watcher = new QFutureWatcher<QueueActivity::Sums>(this);
    connect(watcher, &QFutureWatcher<QueueActivity::Sums>::finished, this, [this, watcher] {
        watcher->deleteLater();
        m_summing = false;
        // Queues not summed before: the file's earlier points summed again,
        // theirs included (the first sums come after the chart's first read).
        if (m_activity->add(watcher->result()))
            m_queueChart->rereadHistory();
    });
    watcher->setFuture(QtConcurrent::run([snapshot] { return QueueActivity::sum(*snapshot); }));
}

void OverviewPage::setFiring(const QList<AlertEvent> &firing)
{
    if (firing.isEmpty()) {
        m_firingText.clear();
        m_firing->hide();
        m_firing->clear();
        return;
    }
    // The worst: the highest severity, the oldest of those (firing() is
    // oldest first).
    const AlertEvent *worst = &firing.first();
    for (const AlertEvent &e : firing) {
        if (e.rule.severity > worst->rule.severity)
            worst = &e;
    }
    m_firingSeverity = worst->rule.severity == AlertRule::Severity::Critical ? Severity::Critical
                                                                             : Severity::Warning;
    // The sentence says its severity; "FIRING" is what the line is about.
    QString sentence = worst->sentence();
    if (sentence.startsWith(QLatin1String("FIRING ")))
        sentence.remove(0, 7);
    m_firingText = tr("<b>%1 firing</b>; the worst: %2")
                       .arg(firing.size() == 1 ? tr("1 alert") : tr("%1 alerts").arg(firing.size()),
                            sentence.toHtmlEscaped());
    styleFiring();
    m_firing->setToolTip(tr("The Alerts page lists every firing with its rule."));
    m_firing->show();
}

void OverviewPage::styleFiring()
{
    const theme::Badge colors = theme::badge(m_firingSeverity, palette());
    m_firing->setStyleSheet(QStringLiteral("#overviewFiring { background: %1; color: %2; "
                                           "border-radius: 4px; padding: 4px 8px; }")
                                .arg(colors.fill.name(), colors.text.name()));
    // The link in the line's own text colour: the palette's link colour is
    // for the window's background, not the badge's fill.
    if (!m_firingText.isEmpty())
        m_firing->setText(QStringLiteral("%1 &nbsp; <a href=\"alerts\" style=\"color:%2\">%3</a>")
                              .arg(m_firingText, colors.text.name(), tr("Open Alerts")));
}

void OverviewPage::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) // the firing line in the palette's colours
        styleFiring();
}

void OverviewPage::setHistoryFile(const QString &path)
{
    m_queueChart->setHistoryFile(path);
}

void OverviewPage::setServerPanel(QWidget *panel)
{
    panel->setParent(this);
    static_cast<QVBoxLayout *>(layout())->insertWidget(2, panel);
}

void OverviewPage::update(const Snapshot &snapshot, bool connected)
{
    m_tiles->update(snapshot, connected);
    // The chart reads its series from a snapshot's history: the sums'
    // alone, at the snapshot's time.
    Snapshot sums;
    sums.sequence = snapshot.sequence;
    sums.server = snapshot.server;
    sums.history.insert(QueueActivity::Key, m_activity->history());
    m_queueChart->refresh(sums);
    m_attention->clear();
    if (snapshot.attention) {
        for (const AttentionItem &a : *snapshot.attention) {
            auto *item = new QListWidgetItem(a.text, m_attention);
            item->setData(SparklineRole, QVariant::fromValue(sparklinePolygon(a.sparkline)));
            item->setData(Qt::UserRole, a.section);
            item->setData(Qt::UserRole + 1, a.key);
            if (a.deadlineAtMs >= 0) { // data lost for good when it passes: red, as the tile
                item->setForeground(theme::limit(m_attention->palette()));
                QFont bold = m_attention->font();
                bold.setBold(true);
                item->setFont(bold);
            }
        }
    }
    if (!connected) { // no zeros that look like readings
        m_counts->setText(tr("<h3>Not connected</h3><p>No reading yet.</p>"));
        return;
    }
    // The side list's tally of the same snapshot (objects that are there,
    // not those gone): one truth per figure.
    const QHash<QString, SectionTally> tallies = tallySections(snapshot);
    QStringList parts;
    for (const Section &section : PatternRegistry::instance().sections()) {
        parts << tr("%1: %2").arg(section.title).arg(tallies.value(section.id).objects);
    }
    m_counts->setText(
        tr("<h3>%1</h3><p>%2%3</p>")
            .arg(
                snapshot.profile == QLatin1String("autodetected")
                    ? tr("Autodetected")
                    : tr("Profile %1").arg(snapshot.profile.toHtmlEscaped()),
                parts.join(QStringLiteral(" · ")),
                snapshot.server.notes.isEmpty()
                    ? QString()
                    : QStringLiteral("</p><p><i>%1</i>").arg(escapedNotes(snapshot.server.notes))));
}

} // namespace gatehouse
