// SPDX-License-Identifier: MIT
// Light and dark palettes whose text reads (contrast of at least 4.5:1,
// computed from the colours the console paints with: table text, greyed
// "gone" rows, state and environment badges, chart titles, series and the limit line), and
// charts that show what happened: a y range holding every value and the
// limit (an overshoot is not cut off), zero-based, the hover readout
// cleared on a new selection, and an export of one file per chart named
// <chart>-<key>-<time>.png.
#include <chartpanel.h>
#include <chartscale.h>
#include <theme.h>

#include <patterns/patternunit.h>

#include <QApplication>
#include <QDir>
#include <QImage>
#include <QTemporaryDir>
#include <QTest>

#include <qcustomplot.h>

using namespace gatehouse;

Q_DECLARE_METATYPE(gatehouse::theme::Scheme)

namespace {

void atLeastAA(const QColor &text, const QColor &background, const char *what)
{
    const double ratio = theme::contrast(text, background);
    QVERIFY2(ratio >= 4.5, qPrintable(QStringLiteral("%1: %2 on %3 is %4:1")
                                          .arg(QLatin1String(what), text.name(), background.name())
                                          .arg(ratio, 0, 'f', 2)));
}

} // namespace

class tst_Theme : public QObject
{
    Q_OBJECT

private slots:
    void contrast_data()
    {
        QTest::addColumn<theme::Scheme>("scheme");
        QTest::newRow("light") << theme::Scheme::Light;
        QTest::newRow("dark") << theme::Scheme::Dark;
    }
    void contrast()
    {
        QFETCH(theme::Scheme, scheme);
        // The formula itself: black on white is 21:1, a colour on itself 1:1.
        QCOMPARE(qRound(theme::contrast(Qt::black, Qt::white)), 21);
        QCOMPARE(theme::contrast(QColor(0x77, 0x77, 0x77), QColor(0x77, 0x77, 0x77)), 1.0);

        theme::apply(scheme);
        const QPalette p = QApplication::palette();
        QCOMPARE(theme::schemeOf(p), scheme);
        for (QPalette::ColorGroup g : {QPalette::Active, QPalette::Disabled}) {
            atLeastAA(p.color(g, QPalette::Text), p.color(g, QPalette::Base), "text");
            atLeastAA(p.color(g, QPalette::Text), p.color(g, QPalette::AlternateBase),
                      "text, alternate rows");
            atLeastAA(p.color(g, QPalette::WindowText), p.color(g, QPalette::Window),
                      "window text");
            atLeastAA(p.color(g, QPalette::ButtonText), p.color(g, QPalette::Button), "buttons");
        }
        atLeastAA(p.color(QPalette::HighlightedText), p.color(QPalette::Highlight), "selection");
        atLeastAA(p.color(QPalette::ToolTipText), p.color(QPalette::ToolTipBase), "tooltips");
        atLeastAA(theme::mutedText(p), p.color(QPalette::Base), "gone rows");
        atLeastAA(theme::mutedText(p), p.color(QPalette::AlternateBase), "gone rows, alternate");
        for (Severity s : {Severity::Ok, Severity::Muted, Severity::Warning, Severity::Critical})
            atLeastAA(theme::badge(s, p).text, theme::badge(s, p).fill, "state badge");
        for (const QString &name : Environment::colourNames()) {
            const theme::Badge b = theme::environmentBadge(*Environment::colourFromName(name), p);
            atLeastAA(b.text, b.fill, "environment badge");
        }
        for (int i = 0; i < 4; ++i)
            atLeastAA(theme::series(i, p), p.color(QPalette::Base), "chart series, sparklines");
        atLeastAA(theme::limit(p), p.color(QPalette::Base), "limit line");

        // A chart panel as the console builds it: its titles and axis text
        // in the palette's colours on the plot's background.
        ChartPanel panel(QStringLiteral("limiter"));
        panel.setPalette(p);
        const QList<QCustomPlot *> plots = panel.findChildren<QCustomPlot *>();
        QVERIFY(!plots.isEmpty());
        for (QCustomPlot *plot : plots) {
            const QColor background = p.color(QPalette::Base);
            for (int i = 0; i < plot->plotLayout()->elementCount(); ++i) {
                if (auto *title = qobject_cast<QCPTextElement *>(plot->plotLayout()->elementAt(i)))
                    atLeastAA(title->textColor(), background, "chart title");
            }
            atLeastAA(plot->yAxis->tickLabelColor(), background, "axis labels");
            atLeastAA(plot->legend->textColor(), background, "legend");
        }
    }

    void yRange_data()
    {
        QTest::addColumn<QList<double>>("values");
        QTest::addColumn<double>("limit"); // < 0: none
        QTest::addColumn<double>("lower");
        QTest::addColumn<double>("atLeast"); // the upper bound is at least this
        // An overshoot to 150 % of the limit stays on the chart (once cut at 1.2x).
        QTest::newRow("overshoot") << QList<double>{10, 40, 75, 60} << 50.0 << 0.0 << 75.0;
        QTest::newRow("under the limit") << QList<double>{1, 2, 3} << 50.0 << 0.0 << 50.0;
        // An all-zero retry horizon: 0..1, not -20..20 s.
        QTest::newRow("all zero") << QList<double>{0, 0, 0} << -1.0 << 0.0 << 1.0;
        QTest::newRow("empty") << QList<double>{} << -1.0 << 0.0 << 1.0;
        QTest::newRow("no limit") << QList<double>{3, 9} << -1.0 << 0.0 << 9.0;
    }
    void yRange()
    {
        QFETCH(QList<double>, values);
        QFETCH(double, limit);
        QFETCH(double, lower);
        QFETCH(double, atLeast);
        const ValueRange r
            = valueRange(values, limit >= 0 ? std::optional<double>(limit) : std::nullopt);
        QCOMPARE(r.lower, lower);
        QVERIFY2(r.upper >= atLeast, qPrintable(QString::number(r.upper)));
        QVERIFY(r.upper <= std::max(atLeast, 1.0) * 1.25); // no wasted half-empty chart
    }

    void ticksFollowTheAxisLength()
    {
        QCOMPARE(tickCountFor(100), 2);
        QCOMPARE(tickCountFor(300), 5);
        QCOMPARE(tickCountFor(2000), 8);
    }

    void exportOneFilePerChart()
    {
        theme::apply(theme::Scheme::Light);
        const qint64 at = QDateTime(QDate(2026, 11, 23), QTime(22, 14, 3)).toMSecsSinceEpoch();
        QCOMPARE(chartFileName(QStringLiteral("In window"), QStringLiteral("sim:rl:api:0"), at),
                 QStringLiteral("in_window-sim_rl_api_0-20261123-221403.png"));

        ChartPanel panel(QStringLiteral("limiter"));
        panel.resize(900, 700);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        ObjectState s;
        s.object.edit().kind = PatternKind("sliding-window");
        s.object.edit().key = "sim:rl:api:0";
        s.reading.inWindow = 75;
        s.reading.limit = 50;
        panel.setObject(&s);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QStringList files = panel.exportPngs(dir.path(), at);
        const QList<Chart> charts = PatternUnit::of(s.object->kind).charts();
        QCOMPARE(files.size(), charts.size());
        for (int i = 0; i < charts.size(); ++i) {
            QCOMPARE(QFileInfo(files.at(i)).fileName(),
                     chartFileName(charts.at(i).title, QStringLiteral("sim:rl:api:0"), at));
            const QImage image(files.at(i));
            QVERIFY2(!image.isNull(), qPrintable(files.at(i)));
            // The band with the key and time above the chart: text-coloured
            // pixels in the first rows.
            bool written = false;
            for (int x = 0; x < image.width() && !written; ++x) {
                for (int y = 0; y < 12 && !written; ++y)
                    written = theme::contrast(image.pixelColor(x, y), Qt::white) > 3.0;
            }
            QVERIFY2(written, "the key and time are not written in the image");
        }

        // No selection: a hint, no export, no stale hover readout.
        panel.setObject(nullptr);
        QVERIFY(panel.hoverText().isEmpty());
        QVERIFY(panel.exportPngs(dir.path(), at).isEmpty());
    }
};

QTEST_MAIN(tst_Theme)
#include "tst_theme.moc"
